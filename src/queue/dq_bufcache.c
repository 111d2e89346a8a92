/*
 * dq_bufcache.c: the outgoing/incoming exchange buffers of destroyed data queues, kept
 * for the next data queues of the same size.
 *
 * Why: a data queue's buffers are large (2 x npes x room bytes). Fresh ones are new
 * mmap'ed memory, and an MPI that registers memory for large transfers (MPICH ch4:ucx)
 * pays that again on the first exchange of every queue: ~0.1 s per 32 MiB on Debian's
 * MPICH, more than the exchange itself. A program that creates and destroys queues
 * around every phase (the dynamic-queue use the spec motivates) would pay it each time;
 * kept buffers stay mapped and registered. Bounded (4 buffers, 256 MiB), exact-size
 * match (the cache module, src/mpi_rma/bufcache.h), freed at finalize.
 */
#include "data_queue.h"
#include "../mpi_rma/bufcache.h"

#include <stdlib.h>

static shmemi_bufcache_t dq_cache =
    SHMEMI_BUFCACHE_INIT(4, (size_t)256 << 20, shmemi_bufcache_free);

void *shmemi_queue_data_buf_take(size_t bytes)
{
    void *p = shmemi_bufcache_take(&dq_cache, bytes);
    return p ? p : malloc(bytes ? bytes : 1);
}

void shmemi_queue_data_buf_give(void *p, size_t bytes)
{
    shmemi_bufcache_give(&dq_cache, p, bytes);
}

void shmemi_queue_data_buf_cache_free(void)
{
    shmemi_bufcache_drain(&dq_cache);
}
