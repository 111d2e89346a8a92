#!/bin/sh
# info.sh: shmemq_info's output (issue 14). Runs it at 1 and 2 PEs (and with every PE its
# own node) through test/run-mpi.sh and checks: the versions and MPI lines are there, the
# heap size and its source follow SHMEM_SYMMETRIC_SIZE, a variable that is set shows its
# value, --json is valid JSON with the same content, and every environment variable the
# library's sources read is listed by shmemq_info and by docs/environment.md.
top="${top_builddir:-.}"
src="${srcdir:-$(dirname "$0")/..}"
info="$top/shmemq_info"
status=0
fail() { echo "FAIL: $*"; status=1; }

for np in 1 2; do
  out=$(SHMEM_SYMMETRIC_SIZE=64M SHMEMQ_COMBINE=1 SHMEMQ_TEST_NPES="$np" SHMEMQ_TEST_OFFNODE_NPES= SHMEMQ_TEST_NODES2_NPES= \
        sh "$top/test/run-mpi.sh" "$info" 2>&1) || fail "$np PE(s): shmemq_info failed: $out"
  for want in '^library +shmemq ' '^spec_version +1\.5$' "^pes +$np\$" '^mpi_library +[A-Za-z]' \
              '^mpi_thread_level +MPI_THREAD_(SINGLE|FUNNELED|SERIALIZED|MULTIPLE)$' \
              '^heap_bytes +67108864 ' '^heap_size_source +SHMEM_SYMMETRIC_SIZE' \
              '^node_transport +node of ' '^commq_off_node +[a-z]' '^dataq_default_room +[0-9]+ bytes' \
              '^ +SHMEMQ_COMBINE +1 +(0|adaptive) '; do
    echo "$out" | grep -Eq -- "$want" || fail "$np PE(s): no line matching '$want' in:
$out"
  done
done
# every PE its own node: the transport line says so
out=$(SHMEMQ_TEST_NPES=" " SHMEMQ_TEST_OFFNODE_NPES=2 SHMEMQ_TEST_NODES2_NPES= sh "$top/test/run-mpi.sh" "$info" 2>&1) ||
  fail "off-node: shmemq_info failed: $out"
echo "$out" | grep -Eq '^node_transport +node of 1 PE' || fail "off-node: node_transport is not one PE: $out"

# --json: valid, and the same fields
json=$(SHMEM_SYMMETRIC_SIZE=64M SHMEMQ_TEST_NPES=1 SHMEMQ_TEST_OFFNODE_NPES= SHMEMQ_TEST_NODES2_NPES= \
       sh "$top/test/run-mpi.sh" "$info" --json 2>/dev/null | sed -n '/^{/,/^}/p')
if command -v python3 >/dev/null 2>&1; then
  echo "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["spec_version"] == "1.5", d["spec_version"]
assert d["heap_bytes"] == 64 << 20, d["heap_bytes"]
assert d["pes"] == 1
names = [v["name"] for v in d["environment"]]
assert "SHMEMQ_WATCHDOG_SECONDS" in names and "SHMEM_DEBUG" in names, names
assert [v for v in d["environment"] if v["name"] == "SHMEM_SYMMETRIC_SIZE"][0]["value"] == "64M"
' || fail "--json: not the expected JSON: $json"
else
  echo "$json" | grep -q '"spec_version": "1.5"' || fail "--json: no spec_version: $json"
fi

# every variable the library reads: listed by shmemq_info and in docs/environment.md
listed=$(SHMEMQ_TEST_NPES=1 SHMEMQ_TEST_OFFNODE_NPES= SHMEMQ_TEST_NODES2_NPES= sh "$top/test/run-mpi.sh" "$info" 2>/dev/null)
vars=$(grep -rhoE 'getenv\("(SHMEM|SHMEMQ|SMA)_[A-Z0-9_]+"\)|"(SHMEMQ|SHMEM|SMA)_[A-Z0-9_]+"' \
         "$src/src/mpi_rma" "$src/src/queue" | grep -oE '(SHMEMQ|SHMEM|SMA)_[A-Z0-9_]+' | sort -u)
[ -n "$vars" ] || fail "found no variable names in $src/src"
for v in $vars; do
  echo "$listed" | grep -Eq "^ +$v " || fail "shmemq_info does not list $v"
  grep -q "\`$v\`" "$src/docs/environment.md" || fail "docs/environment.md does not list $v"
done
# settings that are not valid: one line each at shmem_init naming variable, value and
# what is used instead, and shmemq_info shows it (issue 20, 4)
out=$(SHMEMQ_COMM_PATH=foo SHMEMQ_CHUNK_BYTES=1 SHMEM_DEBUG=maybe SHMEMQ_QUEUE_BUDGET=lots SHMEMQ_TEST_NPES=2 \
      SHMEMQ_TEST_OFFNODE_NPES= SHMEMQ_TEST_NODES2_NPES= sh "$top/test/run-mpi.sh" "$info" 2>&1) ||
  fail "bad settings: shmemq_info failed: $out"
for want in "shmem_init: SHMEMQ_COMM_PATH='foo' is not one of: auto rma am; using auto" \
            "shmem_init: SHMEMQ_CHUNK_BYTES='1' is outside \[1024, 67108864\] bytes; using 128K" \
            "shmem_init: SHMEM_DEBUG='maybe' is not a boolean .*; using 0" \
            "shmem_init: SHMEMQ_QUEUE_BUDGET='lots' is not a size .*; using 64M" \
            '^ +SHMEMQ_COMM_PATH +foo +auto .*NOT VALID: is not one of'; do
  [ "$(echo "$out" | grep -Ec -- "$want")" -eq 1 ] || fail "bad settings: not exactly one line matching '$want' in:
$out"
done

# one source of truth: every docs table row "| `VAR` | default | ..." for a variable
# shmemq_info lists gives the default shmemq_info prints (issue 20, 5)
json=$(SHMEMQ_TEST_NPES=1 SHMEMQ_TEST_OFFNODE_NPES= SHMEMQ_TEST_NODES2_NPES= sh "$top/test/run-mpi.sh" "$info" --json 2>/dev/null |
       sed -n '/^{/,/^}/p')
if command -v python3 >/dev/null 2>&1; then
  echo "$json" | python3 -c '
import glob, json, re, sys
d = {v["name"]: v["default"] for v in json.load(sys.stdin)["environment"]}
bad, rows = [], 0
for doc in sorted(glob.glob(sys.argv[1] + "/docs/*.md")) + [sys.argv[1] + "/README.md"]:
    for line in open(doc):
        m = re.match(r"\|\s*((?:`[A-Z0-9_]+`(?:,\s*)?)+)\s*\|\s*([^|]*)\|", line)
        if not m:
            continue
        for name in re.findall(r"`([A-Z0-9_]+)`", m.group(1)):
            if name not in d:
                continue
            rows += 1
            cell = m.group(2).replace("`", "").strip()
            want = d[name]
            ok = (cell.split(" ")[0] in ("unset", "-", "(unset)")) if want == "" else \
                 re.search(r"(^|[ (,])" + re.escape(want) + r"($|[ ),;])", cell) is not None
            if not ok:
                bad.append("%s: %s default %r, shmemq_info says %r" % (doc, name, cell, want))
if bad or rows < 20:
    print("\n".join(bad) or "only %d rows found" % rows)
    sys.exit(1)
' "$src" || fail "docs and shmemq_info disagree on defaults"
fi

# every build/... program path the README and docs tell a user to run exists in this
# build (the README's builds are in build/)
for p in $(grep -ohE 'build/(examples|bench)/[a-z0-9_]+' "$src/README.md" "$src"/docs/*.md | sort -u); do
  [ -x "$top/${p#build/}" ] || fail "docs name $p, which this build does not make"
done

[ $status -eq 0 ] && echo "ok: shmemq_info at 1 and 2 PEs, off-node, --json; $(echo "$vars" | wc -l) variables listed and documented"
exit $status
