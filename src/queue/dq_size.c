/*
 * dq_size.c: the default room of a data queue, from the cache size hwloc reports
 * (docs/data_queues.md): a flush should move rooms that are still in cache.
 */
#include "data_queue.h"
#include <hwloc.h>

static size_t cache_bytes;
static const char *cache_name = "none found: 1 MiB assumed";
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void dq_read_cache_size(void)
{
    hwloc_topology_t topo;
    size_t sz = 0;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            /* L2 first (per core: the outgoing rooms are written by this core); else the
             * last level cache there is. */
            static const hwloc_obj_type_t order[] = {HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                                     HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L1CACHE};
            for (size_t i = 0; i < sizeof order / sizeof order[0] && sz == 0; i++) {
                hwloc_obj_t o = hwloc_get_obj_by_type(topo, order[i], 0);
                if (o && o->attr) {
                    sz = (size_t)o->attr->cache.size;
                    cache_name = i == 0 ? "L2" : i == 1 ? "L3" : i == 2 ? "L4" : "L1";
                }
            }
        }
        hwloc_topology_destroy(topo);
    }
    cache_bytes = sz ? sz : (size_t)1 << 20;
}

/* Default bytes per peer: outgoing + incoming rooms of all peers together fill the
 * cache, but never less than 4 KiB per peer. Multiple of elem, at least one elem. */
size_t shmemi_queue_data_default_room(size_t elem, int npes)
{
    pthread_once(&cache_once, dq_read_cache_size);
    size_t r = cache_bytes / (2 * (size_t)npes);
    if (r < 4096)
        r = 4096;
    r -= r % elem;
    return r ? r : elem;
}

/* One line for shmemq_info: the default room and the hwloc figure behind it. */
void shmemi_queue_data_describe(char *buf, size_t n, int npes)
{
    size_t r = shmemi_queue_data_default_room(1, npes);
    snprintf(buf, n, "%zu bytes per peer at %d PEs (cache %s of %zu bytes, from hwloc)", r,
             npes, cache_name, cache_bytes);
}
