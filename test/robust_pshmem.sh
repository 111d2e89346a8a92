#!/bin/sh
# robust_pshmem.sh: <pshmem.h> declares every profiling twin the library defines.
# test/pshmem_all was compiled with -Werror=implicit-function-declaration and takes the
# address of every name in the header's lists; here nm checks that it references every
# twin (p + NAME, where the library defines both) that libshmemq exports. Run from the
# build directory by `make check`.
set -u
prog=test/pshmem_all
obj=test/programs/pshmem_all-pshmem_all.o
if [ -f .libs/libshmemq.so ]; then
  defs=$(nm -D --defined-only .libs/libshmemq.so | awk '{print $3}')
else
  defs=$(nm --defined-only .libs/libshmemq.a 2>/dev/null | awk 'NF == 3 {print $3}')
fi
tmp=${TMPDIR:-/tmp}/robust_pshmem.$$
trap 'rm -f "$tmp".*' EXIT
printf '%s\n' "$defs" | sort -u >"$tmp.defs"
# twins: pNAME defined and NAME defined (pshmem_*, pshmemx_*, pstart_pes, p_my_pe, ...)
sed -n 's/^p//p' "$tmp.defs" | sort -u | comm -12 - "$tmp.defs" | sed 's/^/p/' >"$tmp.twins"
nm -u "$obj" | awk '{print $2}' | sort -u >"$tmp.refs"
missing=$(comm -23 "$tmp.twins" "$tmp.refs")
n=$(wc -l <"$tmp.twins")
if [ "$n" -lt 1000 ]; then
  echo "robust_pshmem: only $n twins found in the library: nm failed?" >&2
  exit 1
fi
if [ -n "$missing" ]; then
  echo "robust_pshmem: twins the library exports that $obj does not reference" >&2
  echo "(declare them in include/pshmem.h and add them to test/programs/pshmem_all.c):" >&2
  printf '%s\n' "$missing" >&2
  exit 1
fi
./$prog || exit 1
echo "robust_pshmem: all $n profiling twins declared by <pshmem.h> and referenced"
