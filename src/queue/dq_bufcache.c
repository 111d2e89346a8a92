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
 *
 * Routed queues (dq_route.h) have no rooms: their porter and staging buffers start small
 * and grow with the traffic, by realloc, so a new queue pays the growth again (copies,
 * and page faults on every new page: at 4 PEs as two nodes of two, 2M 8-byte pushes
 * took ~0.5 s into a new queue against ~0.06 s into one that had grown). A destroyed
 * routed queue's grown buffers are kept in a second cache, and a buffer of a later
 * routed queue that must grow takes the smallest kept one that holds what it needs.
 * Only grown buffers are kept (small ones cost little to make); bounded like the first
 * (64 buffers, 256 MiB), freed at finalize. What is kept belongs to no queue, so no
 * queue's usage counts it, as for the rooms.
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

static shmemi_bufcache_t rt_cache =
    SHMEMI_BUFCACHE_INIT(64, (size_t)256 << 20, shmemi_bufcache_free);

#define RT_KEEP_MIN ((size_t)64 << 10)

uint64_t shmemi_queue_data_rbuf_adopted;

void *shmemi_queue_data_rbuf_take(size_t min, size_t *bytes)
{
    void *p = shmemi_bufcache_take_atleast(&rt_cache, min, bytes);
    if (p)
        __atomic_fetch_add(&shmemi_queue_data_rbuf_adopted, 1, __ATOMIC_RELAXED);
    return p;
}

void shmemi_queue_data_rbuf_give(void *p, size_t bytes)
{
    if (bytes >= RT_KEEP_MIN)
        shmemi_bufcache_give(&rt_cache, p, bytes);
    else
        free(p);
}

void shmemi_queue_data_buf_cache_free(void)
{
    shmemi_bufcache_drain(&dq_cache);
    shmemi_bufcache_drain(&rt_cache);
}
