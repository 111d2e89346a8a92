/* cq_scratch.c: the burst scratch of a comm queue (record lengths and displacements, the
 * combining hash and its stamps) as one anonymous mapping per queue.
 *
 * Why a mapping and not malloc: the scratch is most of a queue's memory (~240 KiB of
 * address space at the default RMA chunk, twice that on the AM path) and an idle queue
 * never touches it. Fresh anonymous pages cost nothing until touched and read as zero
 * (the stamps need zeros), and a destroyed queue's scratch goes back to the system at
 * once. From malloc it came out of glibc's heap (shmemi_malloc_prime raises its trim
 * threshold), which kept the freed blocks: RSS grew over rounds of creating and
 * destroying 1,000 queues (18 -> 97 -> 151 -> 181 -> 188 MB, issue 20). A few mappings
 * are kept for the next queues, with their pages released (MADV_DONTNEED: zero again on
 * the next touch), so create/destroy churn costs no mmap and the cache holds no memory. */
#include "comm_queue.h"
#include <sys/mman.h>

#define SCRATCH_CACHE 8

static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *p;
    size_t bytes;
} cache[SCRATCH_CACHE];

void *cq_scratch_take(size_t bytes)
{
    pthread_mutex_lock(&scratch_lock);
    for (int i = 0; i < SCRATCH_CACHE; i++) {
        if (cache[i].p && cache[i].bytes == bytes) {
            void *p = cache[i].p;
            cache[i].p = NULL;
            pthread_mutex_unlock(&scratch_lock);
            return p;
        }
    }
    pthread_mutex_unlock(&scratch_lock);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void cq_scratch_give(void *p, size_t bytes)
{
    if (p == NULL)
        return;
    /* release the pages (zero on the next touch), keep the address range */
    if (madvise(p, bytes, MADV_DONTNEED) == 0) {
        pthread_mutex_lock(&scratch_lock);
        for (int i = 0; i < SCRATCH_CACHE; i++) {
            if (cache[i].p == NULL) {
                cache[i].p = p;
                cache[i].bytes = bytes;
                pthread_mutex_unlock(&scratch_lock);
                return;
            }
        }
        pthread_mutex_unlock(&scratch_lock);
    }
    munmap(p, bytes);
}

void cq_scratch_cache_free(void)
{
    pthread_mutex_lock(&scratch_lock);
    for (int i = 0; i < SCRATCH_CACHE; i++) {
        if (cache[i].p)
            munmap(cache[i].p, cache[i].bytes);
        cache[i].p = NULL;
    }
    pthread_mutex_unlock(&scratch_lock);
}
