#!/bin/bash
# Build MPICH with the ch4:ofi device (libfabric) and install it into a cache directory, or
# reuse the one installed there before. Prints the install prefix as the last line of stdout:
#
#   prefix=$(bash ci/mpich-ofi.sh | tail -1)   # then $prefix/bin/mpicc, $prefix/bin/mpiexec
#
# Source: Debian's (or Ubuntu's) own `mpich` source package (`apt-get source mpich`, adding a
# deb-src entry for the machine's suite when there is none), so the version is the one the
# distribution ships. SHMEMQ_MPICH_TARBALL_URL=<url of mpich-X.Y.Z.tar.gz> takes a release
# tarball instead (for machines without deb-src access, e.g. GitHub's Ubuntu runners).
#
# Environment:
#   SHMEMQ_CACHE               cache root (default $HOME/.cache/shmemq)
#   SHMEMQ_MPICH_OFI_PREFIX    install prefix (default $SHMEMQ_CACHE/mpich-<version>-ch4-ofi)
#   SHMEMQ_MPICH_TARBALL_URL   build this release tarball instead of the distribution's source
#   SHMEMQ_MPICH_VERSION       version of that tarball (default: taken from its file name)
#   SHMEMQ_MPICH_OFI_JOBS      make -j (default nproc)
# The install is reused only when its stamp file (written after a successful install and
# check) is present; a half-finished prefix is removed and rebuilt. Progress goes to stderr,
# the build's own output to log files next to the prefix (their tail is shown on failure).
# Needs root or sudo for its apt dependencies (as ci/install-deps.sh).
# The whole script is one { } block: bash parses it before running any of it, so editing this
# file while a build runs does not derail that build.
{
set -eu
set -o pipefail

say() { echo "mpich-ofi: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
JOBS="${SHMEMQ_MPICH_OFI_JOBS:-$(nproc)}"
cand=""

# Build and run-time dependencies. libfabric-dev alone is not enough to link: MPICH's
# configure takes libfabric.pc's Libs.private, so libmpi links libpsm_infinipath, libpsm2 and
# librdmacm (and libibverbs, libefa) directly. libhwloc-dev: MPICH then uses the system hwloc,
# as shmemq does, and a reused install finds it at run time.
DEPS="build-essential pkg-config ca-certificates dpkg-dev python3 libfabric-dev libpsm2-dev
      librdmacm-dev libpsm-infinipath1-dev libhwloc-dev"
[ -n "${SHMEMQ_MPICH_TARBALL_URL:-}" ] && DEPS="$DEPS curl"
missing=""
for p in $DEPS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
apt_updated=""
if [ -n "$missing" ]; then
  say "installing$missing"
  $SUDO apt-get update -qq >&2 || die "apt-get update failed"
  apt_updated=1
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
    die "apt-get install$missing failed"
fi

# Version: the tarball's, or the upstream part of the distribution's mpich package version
# (1:4.0.2-3+b1 -> 4.0.2; the candidate is what `apt-get source` fetches).
if [ -n "${SHMEMQ_MPICH_TARBALL_URL:-}" ]; then
  version="${SHMEMQ_MPICH_VERSION:-$(basename "$SHMEMQ_MPICH_TARBALL_URL" | sed -n 's/^mpich-\(.*\)\.tar\.[a-z0-9]*$/\1/p')}"
  [ -n "$version" ] || die "cannot tell the version from $SHMEMQ_MPICH_TARBALL_URL: set SHMEMQ_MPICH_VERSION"
else
  cand=$(apt-cache policy mpich 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  if { [ -z "$cand" ] || [ "$cand" = "(none)" ]; } && [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq >&2 || die "apt-get update failed"
    apt_updated=1
    cand=$(apt-cache policy mpich 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  fi
  [ -n "$cand" ] && [ "$cand" != "(none)" ] || die "no mpich package known to apt"
  version=$(printf '%s\n' "$cand" | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//')
fi

cache="${SHMEMQ_CACHE:-$HOME/.cache/shmemq}"
prefix="${SHMEMQ_MPICH_OFI_PREFIX:-$cache/mpich-$version-ch4-ofi}"
stamp="$prefix/.shmemq-mpich-ofi-stamp"
logs="$prefix.logs"

# usable <prefix>: installed completely, and every library libmpi needs is found.
usable() {
  local deps
  [ -f "$1/.shmemq-mpich-ofi-stamp" ] && [ -x "$1/bin/mpicc" ] && [ -x "$1/bin/mpicxx" ] ||
    return 1
  deps=$(ldd "$1/lib/libmpi.so" 2>&1) || return 1
  case "$deps" in *"not found"*) return 1 ;; esac
}
if [ -f "$stamp" ] && ! usable "$prefix"; then
  say "$prefix is incomplete or misses libraries (ldd $prefix/lib/libmpi.so): rebuilding"
fi
if usable "$prefix"; then
  say "reusing $prefix ($(head -1 "$stamp"))"
  echo "$prefix"
  exit 0
fi

mkdir -p "$(dirname "$prefix")"
# One build at a time per prefix (two CI runs sharing a cache, or a run and a manual build).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$prefix.lock"
  if ! flock -n 9; then
    say "another build of $prefix is running; waiting for it"
    flock 9
  fi
  if usable "$prefix"; then
    say "reusing $prefix (built meanwhile)"
    echo "$prefix"
    exit 0
  fi
fi

rm -rf "$prefix" "$logs"
mkdir -p "$logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/shmemq-mpich-ofi.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

# run <log name> <command...>: the command's output goes to $logs/<name>.log; on failure
# show its tail and stop.
run() {
  local name="$1"
  shift
  local t0=$SECONDS
  if ! "$@" >"$logs/$name.log" 2>&1; then
    say "$name FAILED after $((SECONDS - t0)) s; last lines of $logs/$name.log:"
    tail -60 "$logs/$name.log" >&2
    exit 1
  fi
  say "$name done in $((SECONDS - t0)) s"
}

# Is there a deb-src line / stanza anywhere in apt's sources?
have_deb_src() {
  grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
    grep -qsiE '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}

# Add deb-src entries mirroring the machine's deb entries for its own suite (and that suite's
# -updates/-security), from the one-line format (/etc/apt/sources.list, *.list) and from
# deb822 (*.sources, Debian 12's default). Written to a file of our own.
add_deb_src() {
  local codename src=/etc/apt/sources.list.d/shmemq-deb-src.sources
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || codename=$(lsb_release -cs 2>/dev/null || true)
  [ -n "$codename" ] || die "cannot tell the distribution's suite (no VERSION_CODENAME in /etc/os-release)"
  local tmp="$work/deb-src.sources"
  : >"$tmp"
  # One-line format: deb [options] URI SUITE COMPONENT...
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v cn="$codename" '
      $1 == "deb" {
        i = 2
        signed = ""
        if ($2 ~ /^\[/) {
          opts = ""
          while (i <= NF) { opts = opts " " $i; if ($i ~ /\]$/) { i++; break } i++ }
          if (match(opts, /signed-by=[^] ]*/)) signed = substr(opts, RSTART + 10, RLENGTH - 10)
        }
        uri = $i; suite = $(i + 1)
        if (suite != cn && index(suite, cn "-") != 1) next
        comps = ""
        for (j = i + 2; j <= NF; j++) comps = comps " " $j
        printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n", uri, suite, comps
        if (signed != "") printf "Signed-By: %s\n", signed
        printf "\n"
      }' "$f" >>"$tmp"
  done
  # deb822: copy each enabled "Types: deb" stanza whose suites include ours, as deb-src.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    [ "$f" = "$src" ] && continue
    awk -v cn="$codename" '
      function flush() {
        if (n > 0 && isdeb && !disabled && oursuite) {
          for (k = 1; k <= n; k++) {
            if (lines[k] ~ /^Types:/) print "Types: deb-src"; else print lines[k]
          }
          print ""
        }
        n = 0; isdeb = 0; disabled = 0; oursuite = 0
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      {
        lines[++n] = $0
        if ($1 == "Types:") { for (j = 2; j <= NF; j++) if ($j == "deb") isdeb = 1 }
        if ($1 == "Enabled:" && tolower($2) == "no") disabled = 1
        if ($1 == "Suites:") {
          for (j = 2; j <= NF; j++) if ($j == cn || index($j, cn "-") == 1) oursuite = 1
        }
      }
      END { flush() }' "$f" >>"$tmp"
  done
  [ -s "$tmp" ] || die "found no apt source for suite $codename to mirror as deb-src"
  say "adding deb-src entries for $codename in $src"
  $SUDO cp "$tmp" "$src"
  $SUDO chmod 644 "$src"
}

t_start=$SECONDS
cd "$work"
if [ -n "${SHMEMQ_MPICH_TARBALL_URL:-}" ]; then
  say "downloading $SHMEMQ_MPICH_TARBALL_URL"
  tarball=$(basename "$SHMEMQ_MPICH_TARBALL_URL")
  run download curl -fsSL --retry 3 -o "$tarball" "$SHMEMQ_MPICH_TARBALL_URL"
  run unpack tar xf "$tarball"
else
  if ! have_deb_src; then
    add_deb_src
    run apt-update $SUDO apt-get update
  fi
  say "fetching the source of mpich $cand (apt-get source)"
  # As root, apt warns that the download runs unsandboxed (user _apt): harmless.
  run apt-source apt-get source mpich
fi
srcdir=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'mpich*' | head -1)
[ -n "$srcdir" ] && [ -x "$srcdir/configure" ] || die "no MPICH source tree with a configure script in $work"

# ch4:ofi on the system libfabric. dataloop instead of yaksa: yaksa generates thousands of
# source files (most of the build time) and shmemq needs no GPU datatype engine. C++ stays
# enabled: without it MPICH installs no mpicxx, and shmemq's tests are C++. Shared library
# only (libtool otherwise compiles every file twice, for libmpi.a too) and no ROMIO
# (MPI-IO, which shmemq never calls): a quarter of the time CI pays (1019 -> 763 s here).
# --no-recursion (autoconf's) skips the configure of MPICH's own test suite (test/mpi and
# its dtpools: a fifth of configure's checks), which `make` never enters; MPICH's
# components (mpl, json-c, hydra) are configured by its own macro and still are.
say "configuring $srcdir for ch4:ofi -> $prefix (1-5 min on 2 cores)"
cd "$srcdir"
run configure ./configure --prefix="$prefix" \
  --with-device=ch4:ofi --with-libfabric=/usr --with-datatype-engine=dataloop \
  --disable-fortran --disable-static --disable-romio --no-recursion
say "building with make -j$JOBS (5-8 min on 2 cores)"
run build make -j"$JOBS"
run install make install

# Check the install: it must be ch4:ofi, and an MPI program must build with its mpicc.
"$prefix/bin/mpichversion" >"$logs/mpichversion.log" 2>&1 || die "$prefix/bin/mpichversion failed"
grep -q 'ch4:ofi' "$logs/mpichversion.log" || { cat "$logs/mpichversion.log" >&2; die "the install is not ch4:ofi"; }
cat >"$work/hello.c" <<'EOF'
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
EOF
run check-mpicc "$prefix/bin/mpicc" "$work/hello.c" -o "$work/hello"
cp "$work/hello.c" "$work/hello.cc"
run check-mpicxx "$prefix/bin/mpicxx" "$work/hello.cc" -o "$work/hello-cxx"

{
  echo "MPICH $version ch4:ofi (libfabric $(dpkg-query -W -f='${Version}' libfabric1 2>/dev/null || echo '?'))"
  echo "source: ${SHMEMQ_MPICH_TARBALL_URL:-apt-get source mpich ($cand)}"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - t_start)) s"
} >"$logs/stamp"
cp "$logs/stamp" "$stamp"
say "installed $prefix in $((SECONDS - t_start)) s"
echo "$prefix"
exit 0
}
