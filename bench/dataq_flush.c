/* dataq_flush.c: cost of one data-queue global flush with sparse traffic, for both
 * direct exchanges (SHMEMQ_DATAQ_EXCHANGE=alltoallv, nbx), interleaved in one job.
 * Each PE pushes e int64s to each of its d right neighbours (d = 0: nothing, a flush of
 * empty queues), flushes, pops and checks everything, R times.
 *
 *   mpiexec -n 8 bench/dataq_flush [d=2] [e=4] [rounds=2000] [pairs=3]
 * Output per exchange and pair: microseconds per flush round (slowest PE), and a CSV
 * line "csv,dataq_flush,exchange,npes,d,e,rounds,us_per_round". */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static void die(const char *what, int rc)
{
    fprintf(stderr, "dataq_flush: %s failed: %d (%s)\n", what, rc, shmemx_queue_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static double run(const char *ex, int d, int e, long R)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), rc;
    setenv("SHMEMQ_DATAQ_EXCHANGE", ex, 1);
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.data_elem_size = 8;
    c.max_bytes = (uint64_t)e * 8 * 4;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    if ((rc = shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD)) != 0)
        die("shmem_queue_data_create", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long r = 0; r < R; r++) {
        for (int j = 1; j <= d; j++)
            for (int s = 0; s < e; s++) {
                int64_t v = ((int64_t)me << 32) | (r * e + s);
                if ((rc = shmem_queue_data_push(q, &v, 1, (me + j) % n)) != 0)
                    die("shmem_queue_data_push", rc);
            }
        if ((rc = shmem_queue_global_flush(q)) != 0)
            die("shmem_queue_global_flush", rc);
        for (int j = 1; j <= d; j++) {
            int src = (me + n - j) % n;
            for (int s = 0; s < e; s++) {
                int64_t v;
                if ((rc = shmem_queue_data_pop(q, &v, 1, src)) != 0)
                    die("shmem_queue_data_pop", rc);
                if (v != (((int64_t)src << 32) | (r * e + s))) {
                    fprintf(stderr, "dataq_flush: wrong element from PE %d\n", src);
                    MPI_Abort(MPI_COMM_WORLD, 4);
                }
            }
        }
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if ((rc = shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD)) != 0)
        die("shmem_queue_data_destroy", rc);
    return tmax / (double)R * 1e6;
}

int main(int argc, char **argv)
{
    shmem_init();
    int d = argc > 1 ? atoi(argv[1]) : 2, e = argc > 2 ? atoi(argv[2]) : 4;
    long R = argc > 3 ? atol(argv[3]) : 2000;
    int pairs = argc > 4 ? atoi(argv[4]) : 3;
    if (d < 0 || e < 1 || R < 1 || pairs < 1) {
        if (shmem_my_pe() == 0)
            fprintf(stderr, "usage: dataq_flush [d>=0] [e>=1] [rounds>=1] [pairs>=1]\n");
        shmem_finalize();
        return 2;
    }
    if (d > shmem_n_pes() - 1)
        d = shmem_n_pes() - 1;
    const char *ex[] = {"alltoallv", "nbx"};
    for (int p = 0; p < pairs; p++)
        for (int i = 0; i < 2; i++) {
            double us = run(ex[i], d, e, R);
            if (shmem_my_pe() == 0) {
                printf("%-9s pair %d: %8.2f us per flush round (%d PEs, %d destinations, %d elements each)\n",
                       ex[i], p + 1, us, shmem_n_pes(), d, e);
                printf("csv,dataq_flush,%s,%d,%d,%d,%ld,%.3f\n", ex[i], shmem_n_pes(), d, e, R, us);
            }
        }
    shmem_finalize();
    return 0;
}
