/* global_exit.c: one PE calls shmem_global_exit(status) while the others are in the
 * middle of queue flushes (test/robust_global_exit.sh). Every PE pushes to every PE
 * through a data queue and a comm queue and flushes both, round after round; after a few
 * rounds the last PE stops taking part and calls shmem_global_exit(status) (status:
 * argv[1], default 7), so the others are left waiting in shmem_queue_global_flush for a
 * PE that will never arrive. The whole job must end with that status within seconds.
 * Should a PE still be running after 60 s it exits 99 by itself (the script's bound
 * fails long before). */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long hits[64];

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 7;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int exiter = n - 1;
    shmem_queue_config_t dc, cc;
    memset(&dc, 0, sizeof dc);
    dc.qtype = SHMEM_QUEUE_DATA;
    memset(&cc, 0, sizeof cc);
    cc.qtype = SHMEM_QUEUE_COMM;
    cc.op_type = SHMEM_OP_ANY;
    cc.pe_type = SHMEM_PE_ALL;
    cc.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t dq, cq;
    if (shmem_queue_data_create(&dq, &dc, SHMEM_TEAM_WORLD) != 0 ||
        shmem_queue_comm_create(&cq, &cc) != 0) {
        fprintf(stderr, "PE %d: queue creation failed\n", me);
        return 2;
    }
    char bytes[256];
    memset(bytes, me, sizeof bytes);
    time_t start = time(NULL);
    for (long round = 0;; round++) {
        if (me == exiter && round == 20) {
            printf("PE %d: shmem_global_exit(%d) in round %ld\n", me, status, round);
            shmem_global_exit(status);
        }
        if (time(NULL) - start > 60) {
            fprintf(stderr, "PE %d: still running 60 s after start: the job did not end\n", me);
            return 99;
        }
        for (int pe = 0; pe < n; pe++) {
            long one = 1;
            shmem_queue_data_push(dq, bytes, sizeof bytes, pe);
            shmem_long_queue_comm_push(cq, &hits[me % 64], &one, 1, pe, SHMEM_OP_ATOMIC_ADD);
        }
        shmem_queue_local_flush(cq);
        int rc = shmem_queue_global_flush(dq);
        if (rc != 0 && rc != SHMEM_QUEUE_ERR_OVERFLOW) {
            fprintf(stderr, "PE %d: global flush returned %d\n", me, rc);
            return 3;
        }
        char in[256];
        for (int pe = 0; pe < n; pe++)
            while (shmem_queue_data_pop(dq, in, sizeof in, pe) == 0)
                ;
    }
}
