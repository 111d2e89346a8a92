/* promises.c: misuse cases whose outcome is an exit status or a message, not a value
 * (issue 20). Run by test/promises.sh, which checks the status, the messages and that
 * the job ends within a bound. Usage: promises <case>
 *   destroy_finalize  PE 0 destroys a data queue holding data, the others go straight
 *                     to shmem_finalize (counts as their destroy): exit 0, the data
 *                     dropped said by the finalizing PEs
 *   flush_finalize    PE 0 calls shmem_queue_global_flush, the others shmem_finalize:
 *                     the job ends, nonzero, saying why
 *   alltoall_malloc   shmem_double_alltoall on malloc'ed buffers, twice: an error
 *                     return, said once per routine (SHMEM_DEBUG=1: the job ends)
 *   heap_exhausted    shmem_malloc beyond the heap, twice, and a shmem_calloc whose size
 *                     overflows: NULL, one message each saying asked/free/variable
 *   wait_nonsym       shmem_wait_until on a non-symmetric address (SHMEM_DEBUG=1)
 *   init_fails        shmem_init_thread fails (a heap too large), then shmem_malloc:
 *                     the reports name the PE (the MPI rank), never "PE -1" */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "misuse_queue.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <case>\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "init_fails") == 0) {
        /* run with a heap no machine has: init fails; later reports name the PE */
        int provided;
        if (shmem_init_thread(SHMEM_THREAD_SINGLE, &provided) == 0)
            return 4;
        void *p = shmem_malloc(8);
        printf("after the failed init: shmem_malloc returned %s\n", p ? "a block" : "NULL");
        fflush(stdout);
        return 0;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (strcmp(mode, "destroy_finalize") == 0) {
        shmem_queue_t q = misuse_data_queue();
        long v = me;
        shmem_queue_data_push(q, &v, 1, (me + 1) % n);
        if (me == 0) {
            int rc = shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD);
            printf("PE 0: shmem_queue_data_destroy returned %d\n", rc);
            fflush(stdout);
        }
    } else if (strcmp(mode, "flush_finalize") == 0) {
        shmem_queue_t q = misuse_data_queue();
        long v = me;
        shmem_queue_data_push(q, &v, 1, (me + 1) % n);
        if (me == 0) {
            int rc = shmem_queue_global_flush(q);
            printf("PE 0: shmem_queue_global_flush returned %d\n", rc);
            fflush(stdout);
        }
    } else if (strcmp(mode, "alltoall_malloc") == 0) {
        double *src = malloc(sizeof(double) * (size_t)n), *dst = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; i++)
            src[i] = me, dst[i] = -1;
        for (int k = 0; k < 2; k++) {
            int rc = shmem_double_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
            printf("PE %d: shmem_double_alltoall returned %d, dst[0] %g\n", me, rc, dst[0]);
            fflush(stdout);
        }
        free(src);
        free(dst);
    } else if (strcmp(mode, "heap_exhausted") == 0) {
        for (int k = 0; k < 2; k++) {
            void *p = shmem_malloc((size_t)1 << 40);
            printf("PE %d: shmem_malloc(1 TiB) returned %s\n", me, p ? "a block" : "NULL");
            fflush(stdout);
        }
        void *c = shmem_calloc(SIZE_MAX / 2, 4);
        printf("PE %d: shmem_calloc(overflow) returned %s\n", me, c ? "a block" : "NULL");
        fflush(stdout);
    } else if (strcmp(mode, "wait_nonsym") == 0) {
        long local = 1;
        shmem_long_wait_until(&local, SHMEM_CMP_EQ, 1);
        printf("PE %d: shmem_long_wait_until returned\n", me);
        fflush(stdout);
    } else {
        fprintf(stderr, "unknown case %s\n", mode);
        return 2;
    }
    shmem_finalize();
    return 0;
}
