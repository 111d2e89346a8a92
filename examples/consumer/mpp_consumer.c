/* mpp_consumer.c: an SGI/Cray-era SHMEM program, unchanged: <mpp/shmem.h>, start_pes,
 * _my_pe/_num_pes, shmalloc/shfree, shmem_long_put and the old collectives' pSync
 * arrays. It relies on the library finalizing at exit (no shmem_finalize). PE 0 prints
 * "OK on N PEs" when every PE received its neighbour's block; exits 1 otherwise. */
#include <mpp/shmem.h>
#include <stdio.h>

#define N 64

static long psync[_SHMEM_REDUCE_SYNC_SIZE];
static int pwrk[_SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int ok_local, ok_all;

int main(void)
{
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    for (int i = 0; i < _SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = _SHMEM_SYNC_VALUE;
    long *dst = (long *)shmalloc(N * sizeof(long));
    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = me * 1000 + i;
    shmem_barrier_all();
    shmem_long_put(dst, src, N, (me + 1) % npes);
    shmem_barrier_all();

    int left = (me + npes - 1) % npes;
    ok_local = 1;
    for (int i = 0; i < N; i++)
        if (dst[i] != left * 1000 + i)
            ok_local = 0;
    shmem_int_min_to_all(&ok_all, &ok_local, 1, 0, 0, npes, pwrk, psync);
    if (me == 0 && ok_all)
        printf("mpp_consumer: OK on %d PEs\n", npes);
    if (!ok_local)
        fprintf(stderr, "PE %d: WRONG block from PE %d\n", me, left);
    shfree(dst);
    return ok_all ? 0 : 1;
}
