/* ctx_init.c: what the context window pool costs at shmem_init.
 *
 * 1. shmem_init wall time as configured (SHMEMQ_CTX_WINDOWS, default 4 pairs).
 * 2. In the same run, on the same memory: the time to create and lock_all k window
 *    pairs the way ctx.c does (MPI_Win_create over a symmetric-heap block + over a
 *    static array), k = 1, 4, 16, so the per-pair cost is visible without re-running.
 * 3. A context is created and used (put + ctx_quiet), and the answer checked.
 * Output: one line per result with its unit, then CSV lines "csv,<name>,<k>,<ms>". */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char static_block[1 << 20];

static double pairs_ms(void *heap_block, size_t heap_bytes, int k)
{
    MPI_Win *w = malloc(sizeof(MPI_Win) * 2 * (size_t)k);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < k; i++) {
        MPI_Win_create(heap_block, (MPI_Aint)heap_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w[2 * i]);
        MPI_Win_create(static_block, sizeof static_block, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                       &w[2 * i + 1]);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, w[2 * i]);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, w[2 * i + 1]);
    }
    double t = (MPI_Wtime() - t0) * 1e3, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * k; i++) {
        MPI_Win_unlock_all(w[i]);
        MPI_Win_free(&w[i]);
    }
    free(w);
    return tmax;
}

int main(void)
{
    MPI_Init(NULL, NULL); /* so that shmem_init alone is timed */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    shmem_init();
    double init_ms = (MPI_Wtime() - t0) * 1e3, init_max = 0;
    MPI_Allreduce(&init_ms, &init_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *env = getenv("SHMEMQ_CTX_WINDOWS");
    if (me == 0) {
        printf("shmem_init (SHMEMQ_CTX_WINDOWS=%s, %d PEs): %.2f ms\n", env ? env : "default(4)",
               npes, init_max);
        printf("csv,shmem_init,%s,%.3f\n", env ? env : "4", init_max);
    }
    size_t heap_bytes = (size_t)64 << 20;
    void *block = shmem_malloc(heap_bytes);
    if (block == NULL) {
        fprintf(stderr, "shmem_malloc(64 MiB) failed\n");
        shmem_global_exit(1);
    }
    const int ks[] = {1, 4, 16};
    for (int i = 0; i < 3; i++) {
        double ms = pairs_ms(block, heap_bytes, ks[i]);
        if (me == 0) {
            printf("%2d window pairs (64 MiB heap block + 1 MiB static): %.2f ms (%.3f ms/pair)\n",
                   ks[i], ms, ms / ks[i]);
            printf("csv,window_pairs,%d,%.3f\n", ks[i], ms);
        }
    }
    /* check: a context works */
    long *dst = shmem_calloc(1, sizeof(long));
    shmem_ctx_t ctx;
    int bad = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0;
    shmem_barrier_all();
    if (!bad) {
        shmem_ctx_long_p(ctx, dst, 1000 + me, (me + 1) % npes);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    bad |= *dst != 1000 + (me + npes - 1) % npes;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("context put check: %s\n", any ? "FAILED" : "ok");
    shmem_free(dst);
    shmem_free(block);
    shmem_finalize();
    MPI_Finalize();
    return any;
}
