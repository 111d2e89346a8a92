/* cq_route.c: the comm queue's node routing (SHMEMQ_QUEUE_ROUTE=node; comm_queue.h,
 * "node routing"; docs/queues_design.md, "Node-routed queues").
 *
 * Off the node every burst already travels as one AM request to the server of the
 * target's node, which applies it through its mapping of the target's memory. A
 * node-routed queue lets one chunk carry the records for every PE of that node (each
 * displacement tagged with its PE's rank on the node), so a PE keeps one slot per op for
 * each PE of its own node and one for each other node: n + N - 1 entries instead of P,
 * and a flush sends at most one burst per node and op instead of one per PE.
 *
 * The table (PE -> slot index | tag) is the same for every node-routed queue of this
 * process: built at the first one's create, freed at finalize. */
#include "comm_queue.h"

static struct {
    pthread_mutex_t lock;
    int built;   /* 1: the table is made (until finalize) */
    int n_idx, n_local;
    uint64_t *table;
} rt = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const char *route_setting(void)
{
    const char *e = getenv("SHMEMQ_QUEUE_ROUTE");
    return e && *e ? e : "direct";
}

/* The table, from the AM transport's server map: this node's PEs first (by node rank),
 * then the other nodes in the order of their lowest PE. */
static int build(void)
{
    int np = shmemi.n_pes, mine = shmemi_am_server_of(shmemi.my_pe);
    int *node_idx = malloc(sizeof(int) * (size_t)np); /* server rank -> index; freed below */
    rt.table = malloc(sizeof(uint64_t) * (size_t)np);
    if (!node_idx || !rt.table) {
        free(node_idx);
        free(rt.table);
        rt.table = NULL;
        return -1;
    }
    for (int p = 0; p < np; p++)
        node_idx[p] = -1;
    int n_local = 0, nodes = 0;
    for (int p = 0; p < np; p++)
        if (shmemi_am_server_of(p) == mine)
            n_local++;
    for (int p = 0; p < np; p++) {
        int s = shmemi_am_server_of(p), lr = shmemi_am_lrank_of(p);
        if (s == mine) {
            rt.table[p] = (uint64_t)(unsigned)lr;
            continue;
        }
        if (node_idx[s] < 0)
            node_idx[s] = n_local + nodes++;
        rt.table[p] = (uint64_t)(unsigned)node_idx[s] | (uint64_t)(unsigned)lr << SHMEMI_XB_TAG_SHIFT;
    }
    free(node_idx);
    rt.n_local = n_local;
    rt.n_idx = n_local + nodes;
    return 0;
}

int cq_route_setup(int path, int *n_idx, int *n_local, const uint64_t **table)
{
    static const char *routine = "shmem_queue_comm_create";
    const char *set = route_setting(), *why = NULL;
    if (strcmp(set, "node") != 0) {
        if (strcmp(set, "direct") != 0)
            shmemi_debug(routine, "SHMEMQ_QUEUE_ROUTE=%s is not direct or node: direct", set);
        return 0;
    }
    if (path != CQ_PATH_RMA)
        why = "SHMEMQ_COMM_PATH=am";
    else if (shmemi.node_size >= shmemi.n_pes)
        why = "a one-node job";
    else if (!shmemi.offnode_am)
        why = "off-node operations do not take the AM transport";
    /* the tags' room: offsets below 2^48, node ranks in 16 bits (every PE alike) */
    else if (shmemi.heap_size > SHMEMI_XB_OFF_MASK || shmemi.data_size > SHMEMI_XB_OFF_MASK ||
             shmemi_am_lrank_max() > 65535)
        why = "a region past 256 TiB or a node past 65,536 PEs";
    if (why) {
        shmemi_debug(routine, "SHMEMQ_QUEUE_ROUTE=node: direct (%s)", why);
        return 0;
    }
    pthread_mutex_lock(&rt.lock);
    if (!rt.built)
        rt.built = build() == 0; /* out of memory: NOMEM now, tried again at the next create */
    int ok = rt.built;
    pthread_mutex_unlock(&rt.lock);
    if (!ok)
        return -1;
    *n_idx = rt.n_idx;
    *n_local = rt.n_local;
    *table = rt.table;
    return 1;
}

int cq_rep(shmem_queue_t q, int pe)
{
    if (q->fast.route && cq_idx(q, pe) >= (uint32_t)q->n_local)
        return shmemi_am_server_of(pe);
    return pe;
}

void cq_route_free(void)
{
    pthread_mutex_lock(&rt.lock);
    free(rt.table);
    rt.table = NULL;
    rt.built = 0;
    pthread_mutex_unlock(&rt.lock);
}
