/* mpi_bitwise_acc.c: a plain MPI check of 64- and 32-bit bitwise and arithmetic
 * accumulates (MPI_Fetch_and_op, MPI_Accumulate, MPI_Get_accumulate) on an
 * MPI_Win_allocate and an MPI_Win_create window. Rank 1 applies each op to a word of
 * rank 0 holding 0xF0F0 and reads it back; every line must end in "ok".
 * Found with it (docs/design.md): Open MPI 5.0.7 (Debian 13), osc/rdma over btl/sm,
 * MPI_Win_create: 64-bit MPI_BAND/MPI_BOR/MPI_BXOR leave the word unchanged or zero
 * (OMPI_MCA_osc_rdma_acc_use_amo=0 makes them right).
 *   mpicc mpi_bitwise_acc.c -o acc && mpiexec -n 2 ./acc; mpiexec -n 2 ./acc create */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int create = argc > 1;
    uint64_t *buf, mem[4];
    MPI_Win win;
    if (create) {
        buf = mem;
        MPI_Win_create(buf, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    }
    const MPI_Datatype types[] = {MPI_UINT64_T, MPI_UINT32_T, MPI_INT64_T};
    const char *tname[] = {"uint64", "uint32", "int64"};
    const MPI_Op ops[] = {MPI_BAND, MPI_BOR, MPI_BXOR, MPI_SUM, MPI_REPLACE};
    const char *oname[] = {"BAND", "BOR", "BXOR", "SUM", "REPLACE"};
    const uint64_t want[] = {0xF0F0 & 0xFF00, 0xF0F0 | 0xFF00, 0xF0F0 ^ 0xFF00,
                             0xF0F0 + 0xFF00, 0xFF00};
    const char *call[] = {"Fetch_and_op", "Accumulate", "Get_accumulate"};
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < 3; t++)
            for (int o = 0; o < 5; o++) {
                buf[0] = 0xF0F0;
                buf[1] = 0;
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Win_lock_all(0, win);
                uint64_t old = 0, after = 0, opnd = 0xFF00, zero = 0;
                if (me == 1) {
                    if (c == 0) {
                        MPI_Fetch_and_op(&opnd, &old, types[t], 0, 0, ops[o], win);
                    } else if (c == 1) {
                        MPI_Fetch_and_op(&zero, &old, types[t], 0, 0, MPI_NO_OP, win);
                        MPI_Win_flush(0, win);
                        MPI_Accumulate(&opnd, 1, types[t], 0, 0, 1, types[t], ops[o], win);
                    } else {
                        MPI_Get_accumulate(&opnd, 1, types[t], &old, 1, types[t], 0, 0, 1,
                                           types[t], ops[o], win);
                    }
                    MPI_Win_flush(0, win);
                    MPI_Fetch_and_op(&zero, &after, types[t], 0, 0, MPI_NO_OP, win);
                    MPI_Win_flush(0, win);
                }
                MPI_Win_unlock_all(win);
                MPI_Barrier(MPI_COMM_WORLD);
                if (me == 1) {
                    if (t == 1) {
                        old &= 0xFFFFFFFF;
                        after &= 0xFFFFFFFF;
                    }
                    int ok = old == 0xF0F0 && after == want[o];
                    bad |= !ok;
                    printf("%-14s %-12s %-7s %-6s old %#llx after %#llx (want %#llx) %s\n",
                           call[c], create ? "Win_create" : "Win_allocate", oname[o], tname[t],
                           (unsigned long long)old, (unsigned long long)after,
                           (unsigned long long)want[o], ok ? "ok" : "WRONG");
                }
            }
    MPI_Win_free(&win);
    MPI_Finalize();
    return bad;
}
