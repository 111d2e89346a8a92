/* consumer.c: a program built against an installed shmemq the way other projects do it
 * (pkg-config and cc, or CMake's find_package), never with oshcc (docs/consumers.md).
 * Each PE adds 1 to a counter on every PE through a comm queue, PE 0 puts a value into
 * every PE's global, and every PE checks both; PE 0 prints "OK on N PEs". Exits 1 on a
 * wrong answer, so the build-and-run check in ci/consumers.sh tests the link for real. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

static long from_pe0; /* symmetric through the data segment */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *count = shmem_calloc(1, sizeof(long));
    if (!count) {
        fprintf(stderr, "PE %d: shmem_calloc failed\n", me);
        shmem_global_exit(1);
    }

    shmem_queue_config_t cfg = {0};
    cfg.qtype = SHMEM_QUEUE_COMM;
    cfg.op_type = SHMEM_OP_ATOMIC_ADD;
    cfg.pe_type = SHMEM_PE_ALL;
    cfg.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    int rc = shmem_queue_comm_create(&q, &cfg);
    const long one = 1;
    for (int pe = 0; rc == 0 && pe < npes; pe++)
        rc = shmem_long_queue_comm_push(q, count, &one, 1, pe, SHMEM_OP_ATOMIC_ADD);
    if (rc == 0)
        rc = shmem_queue_local_flush(q);
    if (rc == 0)
        rc = shmem_queue_comm_destroy(q);
    if (rc) {
        fprintf(stderr, "PE %d: comm queue: %s\n", me, shmemx_queue_strerror(rc));
        shmem_global_exit(1);
    }
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            shmem_long_p(&from_pe0, 1000 + pe, pe);
    shmem_barrier_all();

    int ok = *count == npes && from_pe0 == 1000 + me;
    if (!ok)
        fprintf(stderr, "PE %d: WRONG: count %ld (want %d), from_pe0 %ld (want %d)\n", me,
                *count, npes, from_pe0, 1000 + me);
    /* every PE's verdict reaches PE 0 */
    static int all_ok;
    shmem_int_atomic_add(&all_ok, ok, 0);
    shmem_barrier_all();
    if (me == 0 && all_ok == npes)
        printf("consumer: OK on %d PEs\n", npes);
    int good = all_ok == npes || me != 0;
    shmem_free(count);
    shmem_finalize();
    return good && ok ? 0 : 1;
}
