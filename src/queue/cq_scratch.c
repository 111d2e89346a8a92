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
 * the next touch), so create/destroy churn costs no mmap and the cache holds no memory.
 * The cache is the library's one buffer cache (src/mpi_rma/bufcache.h); what is special
 * here, mmap on a miss and MADV_DONTNEED before keeping, stays in this file. */
#include "comm_queue.h"
#include "../mpi_rma/bufcache.h"
#include <sys/mman.h>

static void scratch_unmap(void *p, size_t bytes)
{
    munmap(p, bytes);
}

/* 8 mappings; no byte bound: a kept mapping holds no memory, only address space. */
static shmemi_bufcache_t cache = SHMEMI_BUFCACHE_INIT(8, 0, scratch_unmap);

void *cq_scratch_take(size_t bytes)
{
    void *p = shmemi_bufcache_take(&cache, bytes);
    if (p)
        return p;
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void cq_scratch_give(void *p, size_t bytes)
{
    if (p == NULL)
        return;
    /* release the pages (zero on the next touch), keep the address range */
    if (madvise(p, bytes, MADV_DONTNEED) == 0)
        shmemi_bufcache_give(&cache, p, bytes);
    else
        munmap(p, bytes);
}

void cq_scratch_cache_free(void)
{
    shmemi_bufcache_drain(&cache);
}
