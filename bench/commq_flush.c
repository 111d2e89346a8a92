/* commq_flush.c: cost of a small push + shmem_queue_local_flush round to ONE target PE
 * (the SHMEM_PE_SAME case), per path. Each PE pushes k int64 adds to its right
 * neighbour, flushes, R times; the counters are checked.
 *
 *   mpiexec -n 4 bench/commq_flush [k=16] [rounds=20000]
 * Output: one line per path (microseconds per round) and a CSV line
 * "csv,commq_flush,path,pe_type,npes,k,rounds,us_per_round". */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    int k = argc > 1 ? atoi(argv[1]) : 16;
    long R = argc > 2 ? atol(argv[2]) : 20000;
    int64_t *ctr = shmem_calloc((size_t)k, sizeof(int64_t));
    const char *paths[] = {"rma", "am"};
    int bad = 0;
    for (int p = 0; p < 2; p++) {
        for (int pt = 0; pt < 2; pt++) {
            setenv("SHMEMQ_COMM_PATH", paths[p], 1);
            shmem_queue_config_t c = {0};
            c.qtype = SHMEM_QUEUE_COMM;
            c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
            c.op_type = SHMEM_OP_ATOMIC_ADD;
            c.pe_type = pt ? SHMEM_PE_ALL : SHMEM_PE_SAME;
            shmem_queue_t q;
            if (shmem_queue_comm_create(&q, &c) != 0) shmem_global_exit(2);
            unsetenv("SHMEMQ_COMM_PATH");
            for (int i = 0; i < k; i++) ctr[i] = 0;
            shmem_barrier_all();
            double t = MPI_Wtime();
            const int64_t one = 1;
            for (long r = 0; r < R; r++) {
                for (int i = 0; i < k; i++)
                    if (shmem_int64_queue_comm_push(q, &ctr[i], &one, 1, right, SHMEM_OP_ATOMIC_ADD))
                        shmem_global_exit(3);
                if (shmem_queue_local_flush(q)) shmem_global_exit(4);
            }
            t = MPI_Wtime() - t;
            shmem_barrier_all();
            for (int i = 0; i < k; i++) bad += ctr[i] != R;
            shmem_queue_comm_destroy(q);
            if (me == 0) {
                printf("commq_flush %-3s %-8s: %8.2f us per round of %d pushes + flush (%d PEs) %s\n",
                       paths[p], pt ? "PE_ALL" : "PE_SAME", t / (double)R * 1e6, k, npes,
                       bad ? "WRONG" : "OK");
                printf("csv,commq_flush,%s,%s,%d,%d,%ld,%.3f\n", paths[p], pt ? "all" : "same",
                       npes, k, R, t / (double)R * 1e6);
            }
        }
    }
    shmem_finalize();
    return bad != 0;
}
