#!/bin/sh
# lint_transport.sh: MPI RMA is called only by the MPI transport (src/mpi_rma/xport_mpi*,
# see src/mpi_rma/xport.h). Fails, naming file:line, when MPI_Put, MPI_Get,
# MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, the
# request-based MPI_R* forms or MPI_Win_flush* are called (code: comments and string
# literals do not count) in any other file under src/.
src="${srcdir:-$(dirname "$0")/..}"
files=$(find "$src/src" -name '*.[ch]' ! -name 'xport_mpi*' | sort)
[ -n "$files" ] || { echo "FAIL: no sources under $src/src"; exit 1; }
# Blank out comments and string/char literals, keeping line numbers, then look for calls.
hits=$(awk '
FNR == 1 { inc = 0 }
{
    line = $0; out = ""; i = 1; n = length(line)
    while (i <= n) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (inc) {
            if (c2 == "*/") { inc = 0; i += 2 } else i++
            continue
        }
        if (c2 == "/*") { inc = 1; i += 2; out = out " "; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "\047") {
            q = c; i++
            while (i <= n && substr(line, i, 1) != q) { if (substr(line, i, 1) == "\\") i++; i++ }
            i++; out = out " "; continue
        }
        out = out c; i++
    }
    if (out ~ /(^|[^A-Za-z0-9_])MPI_(Put|Get|Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap|Rput|Rget|Raccumulate|Rget_accumulate|Win_flush[A-Za-z_]*)[ \t]*\(/)
        printf "%s:%d: %s\n", FILENAME, FNR, $0
}' $files)
if [ -n "$hits" ]; then
    echo "FAIL: MPI RMA outside the MPI transport (src/mpi_rma/xport_mpi*; call the"
    echo "transport interface, src/mpi_rma/xport.h, instead):"
    echo "$hits"
    exit 1
fi
echo "PASS: MPI RMA only in the MPI transport ($(echo "$files" | wc -l) other files checked)"
