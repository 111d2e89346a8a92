/* coll_bench.c: latency of team collectives against the legacy active-set form and
 * plain MPI on a duplicate of the same communicator (shmemx_team_get_mpi_comm), same
 * data, same run. Every variant's answer is checked.
 * Usage: oshrun -n P bench/coll_bench [iters]
 * Output: one line per (op, variant, bytes) with microseconds per call, and CSV lines
 * prefixed "csv," (op,variant,bytes,usec). */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long pSync[SHMEM_REDUCE_SYNC_SIZE];

static void report(const char *op, const char *variant, size_t bytes, double usec)
{
    if (shmem_my_pe() == 0) {
        printf("%-10s %-8s %9zu bytes %10.2f us/call\n", op, variant, bytes, usec);
        printf("csv,%s,%s,%zu,%.3f\n", op, variant, bytes, usec);
    }
}

int main(int argc, char **argv)
{
    shmem_init();
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    int me = shmem_my_pe(), n = shmem_n_pes(), bad = 0;
    size_t maxn = (size_t)1 << 18; /* ints: 1 MiB */
    int *src = shmem_malloc(maxn * sizeof(int)), *dst = shmem_malloc(maxn * sizeof(int));
    MPI_Comm comm;
    if (shmemx_team_get_mpi_comm(SHMEM_TEAM_WORLD, &comm) != 0)
        shmem_global_exit(1);
    for (size_t cnt = 2; cnt <= maxn; cnt *= 16) {
        size_t bytes = cnt * sizeof(int);
        for (size_t k = 0; k < cnt; k++)
            src[k] = me + (int)k;
        long long want0 = (long long)n * (n - 1) / 2; /* element 0 of the sum */
        for (int variant = 0; variant < 3; variant++) {
            const char *name = variant == 0 ? "team" : variant == 1 ? "legacy" : "mpi";
            shmem_barrier_all();
            double t0 = MPI_Wtime();
            for (int it = 0; it < iters; it++) {
                if (variant == 0)
                    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, cnt);
                else if (variant == 1)
                    shmem_int_sum_to_all(dst, src, (int)cnt, 0, 0, n, NULL, pSync);
                else
                    MPI_Allreduce(src, dst, (int)cnt, MPI_INT, MPI_SUM, comm);
            }
            double us = (MPI_Wtime() - t0) * 1e6 / iters;
            bad += dst[0] != want0 || dst[cnt - 1] != (int)(want0 + (long long)n * (cnt - 1));
            report("sum_reduce", name, bytes, us);
        }
        for (int variant = 0; variant < 2; variant++) {
            const char *name = variant == 0 ? "team" : "mpi";
            shmem_barrier_all();
            double t0 = MPI_Wtime();
            for (int it = 0; it < iters; it++) {
                if (variant == 0)
                    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bytes, n - 1);
                else {
                    if (me == n - 1)
                        MPI_Bcast(src, (int)bytes, MPI_BYTE, n - 1, comm);
                    else
                        MPI_Bcast(dst, (int)bytes, MPI_BYTE, n - 1, comm);
                }
            }
            double us = (MPI_Wtime() - t0) * 1e6 / iters;
            if (me != n - 1)
                bad += dst[0] != n - 1 || dst[cnt - 1] != n - 1 + (int)(cnt - 1);
            report("broadcast", name, bytes, us);
        }
    }
    MPI_Comm_free(&comm);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s\n", anybad ? "WRONG ANSWERS" : "all answers checked");
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return anybad != 0;
}
