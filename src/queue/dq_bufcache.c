/*
 * dq_bufcache.c: the outgoing/incoming exchange buffers of destroyed data queues, kept
 * for the next data queues of the same size.
 *
 * Why: a data queue's buffers are large (2 x npes x room bytes). Fresh ones are new
 * mmap'ed memory, and an MPI that registers memory for large transfers (MPICH ch4:ucx)
 * pays that again on the first exchange of every queue: ~0.1 s per 32 MiB on Debian's
 * MPICH, more than the exchange itself. A program that creates and destroys queues
 * around every phase (the dynamic-queue use the spec motivates) would pay it each time;
 * kept buffers stay mapped and registered. Bounded, exact-size match, freed at finalize.
 */
#include "data_queue.h"

#include <stdlib.h>

#define DQ_CACHE_SLOTS 4
#define DQ_CACHE_BYTES ((size_t)256 << 20)

static pthread_mutex_t dq_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *p;
    size_t bytes;
} dq_cache[DQ_CACHE_SLOTS];
static size_t dq_cache_total;

void *shmemi_dataq_buf_take(size_t bytes)
{
    void *p = NULL;
    pthread_mutex_lock(&dq_cache_lock);
    for (int i = 0; i < DQ_CACHE_SLOTS; i++) {
        if (dq_cache[i].p && dq_cache[i].bytes == bytes) {
            p = dq_cache[i].p;
            dq_cache[i].p = NULL;
            dq_cache_total -= bytes;
            break;
        }
    }
    pthread_mutex_unlock(&dq_cache_lock);
    return p ? p : malloc(bytes ? bytes : 1);
}

void shmemi_dataq_buf_give(void *p, size_t bytes)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&dq_cache_lock);
    if (dq_cache_total + bytes <= DQ_CACHE_BYTES) {
        for (int i = 0; i < DQ_CACHE_SLOTS; i++) {
            if (dq_cache[i].p == NULL) {
                dq_cache[i].p = p;
                dq_cache[i].bytes = bytes;
                dq_cache_total += bytes;
                p = NULL;
                break;
            }
        }
    }
    pthread_mutex_unlock(&dq_cache_lock);
    free(p); /* cache full: let it go */
}

void shmemi_dataq_buf_cache_free(void)
{
    pthread_mutex_lock(&dq_cache_lock);
    for (int i = 0; i < DQ_CACHE_SLOTS; i++) {
        free(dq_cache[i].p);
        dq_cache[i].p = NULL;
    }
    dq_cache_total = 0;
    pthread_mutex_unlock(&dq_cache_lock);
}
