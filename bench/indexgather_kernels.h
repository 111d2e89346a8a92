/* bench/indexgather_kernels.h: the index-gather benchmark's data and its queue kernels
 * (two data queues; queued GETs), shared by bench/indexgather.c and bench/scale.c so both
 * run the very same code. Each kernel returns this PE's time; the caller checks results. */
#ifndef BENCH_INDEXGATHER_KERNELS_H
#define BENCH_INDEXGATHER_KERNELS_H

#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

typedef struct {
    int me, npes;
    uint64_t r;       /* requests per PE */
    uint64_t rg;      /* requests per PE for per-element shmem_g */
    uint64_t tpp;     /* table entries per PE */
    uint64_t qelems;  /* comm queue max_elems (0: library default) */
    uint64_t dqbytes; /* data queue max_bytes per peer (requests and replies each) */
    int reps;
    const char *only;
    uint64_t salt;
    uint32_t *spe;    /* owner PE of request i */
    uint64_t *soff;   /* offset on the owner */
    int64_t *table;   /* symmetric table */
    int64_t *result;  /* symmetric result array (R entries) */
    /* mpi_alltoallv's buffers: allocated and touched once, reused by every rep (fresh
     * buffers cost their first MPI_Alltoallv page faults and UCX registration). */
    uint64_t *a2a_sbuf, *a2a_perm, *a2a_rbuf;
    int64_t *a2a_back, *a2a_vals;
    uint64_t a2a_rcap;
    /* called with every queue a kernel made, after its last flush and before its
     * destroy (bench/scale reads shmemx_queue_usage there); NULL: not wanted */
    void (*on_queue)(shmem_queue_t q, void *arg);
    void *on_queue_arg;
} ig_t;

static inline int64_t entry_value(uint64_t salt, uint64_t g) { return (int64_t)bench_mix64(salt ^ g); }

/* The tables and requests of this PE (same for every variant and every run with one
 * seed): entry g of the global table holds entry_value(salt, g); request i asks for
 * (spe[i], soff[i]) and must get expect[i]. */
static inline void ig_make_data(ig_t *x, uint64_t seed, int64_t **expectp)
{
    x->salt = bench_mix64(seed + 1);
    uint64_t nglobal = x->tpp * (uint64_t)x->npes;
    x->table = shmem_malloc(x->tpp * sizeof(int64_t));
    x->result = shmem_malloc(x->r * sizeof(int64_t));
    for (uint64_t o = 0; o < x->tpp; o++) x->table[o] = entry_value(x->salt, o * x->npes + x->me);
    x->spe = malloc(x->r * sizeof(uint32_t));
    x->soff = malloc(x->r * sizeof(uint64_t));
    int64_t *expect = *expectp = malloc(x->r * sizeof(int64_t));
    for (uint64_t i = 0; i < x->r; i++) {
        uint64_t g = bench_histo_index(seed, x->me, i, nglobal);
        x->spe[i] = (uint32_t)(g % x->npes);
        x->soff[i] = g / x->npes;
        expect[i] = entry_value(x->salt, g);
    }
}

static inline shmem_queue_t ig_data_queue(size_t elem, uint64_t bytes)
{
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.max_bytes = bytes;
    c.data_elem_size = elem;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    int rc = shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD);
    if (rc) bench_die("indexgather", "shmem_queue_data_create", rc);
    return q;
}

static inline void ig_flush_ok(shmem_queue_t q)
{
    int rc = shmem_queue_global_flush(q); /* OVERFLOW: the rest moves next round */
    if (rc && rc != SHMEM_QUEUE_ERR_OVERFLOW) bench_die("indexgather", "shmem_queue_global_flush", rc);
}

/* ig_dataq's flushes never overflow: every PE drains what arrived each round. */
static inline void ig_flush_exact(shmem_queue_t q)
{
    int rc = shmem_queue_global_flush(q);
    if (rc) bench_die("indexgather", "shmem_queue_global_flush", rc);
}

static inline void ig_data_size(shmem_queue_t q, size_t *in, size_t *out, int pe)
{
    int rc = shmem_query_data_size(q, in, out, pe);
    if (rc) bench_die("indexgather", "shmem_query_data_size", rc);
}

/* Push this PE's next requests (offset << 32 | slot) until the queue is full or all pushed. */
static inline void ig_push_requests(ig_t *x, shmem_queue_t rq, uint64_t *i)
{
    for (; *i < x->r; (*i)++) {
        uint64_t req = x->soff[*i] << 32 | *i;
        int rc = shmem_queue_data_push(rq, &req, 1, (int)x->spe[*i]);
        if (rc == SHMEM_QUEUE_ERR_FULL) break;
        if (rc) bench_die("indexgather", "shmem_queue_data_push", rc);
    }
}

/* Round trip through two data queues, the way a queue user would write it: each round
 * pushes requests (the owner's offset, 8 bytes) until a room is full, one flush, owners
 * answer every request with its value (8 bytes) in arrival order, one flush, requesters
 * pop the values. Queues keep per-source order, so a reply needs no slot: the requester
 * remembers, per owner, the slots of its requests in push order (a FIFO, like the
 * baseline's permutation). Requests are pushed one by one (the inline fast path);
 * owners and requesters pop and push what one source sent as one block. */
static inline double ig_dataq(ig_t *x)
{
    shmem_queue_t rq = ig_data_queue(sizeof(uint64_t), x->dqbytes);
    shmem_queue_t pq = ig_data_queue(sizeof(int64_t), x->dqbytes);
    int np = x->npes;
    /* per owner: slots of requests sent and not yet answered, a ring of cap >= room
     * elements: at most one room is unanswered, since every round answers everything
     * that arrived and the request flush never overflows (owners drain every round) */
    size_t cap = 1; /* a power of two: ring index by mask */
    while (cap < x->dqbytes / sizeof(uint64_t)) cap *= 2;
    size_t mask = cap - 1;
    uint32_t *slots = malloc((size_t)np * cap * sizeof(uint32_t));
    size_t *head = calloc((size_t)np, sizeof(size_t)), *tail = calloc((size_t)np, sizeof(size_t));
    size_t roomel = x->dqbytes / sizeof(uint64_t) + 1;
    uint64_t *buf = malloc(roomel * sizeof(uint64_t));
    int64_t *vals = malloc(roomel * sizeof(int64_t));
    const int64_t *table = x->table;
    int64_t *res = x->result;
    shmem_barrier_all();
    double t = bench_now();
    uint64_t i = 0;
    int rc;
    for (;;) {
        for (; i < x->r; i++) {
            int p = (int)x->spe[i];
            rc = shmem_queue_data_push(rq, &x->soff[i], 1, p);
            if (rc == SHMEM_QUEUE_ERR_FULL) break;
            if (rc) bench_die("indexgather", "shmem_queue_data_push", rc);
            slots[(size_t)p * cap + (tail[p]++ & mask)] = (uint32_t)i;
        }
        ig_flush_exact(rq);
        /* answer in arrival order: everything from s in one pop, one push */
        for (int s = 0; s < np; s++) {
            size_t in, out;
            ig_data_size(rq, &in, &out, s);
            size_t k = in / sizeof(uint64_t);
            if (k == 0) continue;
            if ((rc = shmem_queue_data_pop(rq, buf, k, s))) bench_die("indexgather", "shmem_queue_data_pop", rc);
            for (size_t j = 0; j < k; j++) vals[j] = table[buf[j]];
            /* never FULL: both rooms hold the same number of elements, at most a room of
             * requests arrives per round and every PE drains its replies each round */
            if ((rc = shmem_queue_data_push(pq, vals, k, s))) bench_die("indexgather", "reply push", rc);
        }
        /* Vote now, overlapped with the reply flush: a PE that has sent every request and
         * answered every one that arrived is done once this reply flush (which never
         * overflows) has delivered; when all are, the loop ends after this round. */
        size_t rin, rout;
        ig_data_size(rq, &rin, &rout, SHMEM_QUEUE_ANY_PE);
        int mine = i == x->r && rin == 0 && rout == 0, all = 0;
        MPI_Request vote;
        MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD, &vote);
        ig_flush_exact(pq);
        for (int s = 0; s < np; s++) {
            size_t in, out;
            ig_data_size(pq, &in, &out, s);
            size_t k = in / sizeof(int64_t);
            if (k == 0) continue;
            if ((rc = shmem_queue_data_pop(pq, vals, k, s))) bench_die("indexgather", "shmem_queue_data_pop", rc);
            const uint32_t *sl = slots + (size_t)s * cap;
            size_t h = head[s];
            for (size_t j = 0; j < k; j++) res[sl[(h + j) & mask]] = vals[j];
            head[s] = h + k;
        }
        MPI_Wait(&vote, MPI_STATUS_IGNORE);
        if (all) break;
    }
    shmem_barrier_all();
    t = bench_now() - t;
    free(slots);
    free(buf);
    free(vals);
    free(head);
    free(tail);
    if (x->on_queue) {
        x->on_queue(rq, x->on_queue_arg);
        x->on_queue(pq, x->on_queue_arg);
    }
    if ((rc = shmem_queue_data_destroy(&rq, SHMEM_TEAM_WORLD))) bench_die("indexgather", "data destroy", rc);
    if ((rc = shmem_queue_data_destroy(&pq, SHMEM_TEAM_WORLD))) bench_die("indexgather", "data destroy", rc);
    return t;
}

/* One queued GET per request (comm queue, SHMEM_OP_GET) straight into the result
 * slot: the queue turns them into a few MPI_Get calls with indexed datatypes. */
static inline double ig_commq_get(ig_t *x)
{
    shmem_queue_t cq;
    int rc = bench_commq_create(&cq, SHMEM_OP_GET, x->qelems);
    if (rc) bench_die("indexgather", "shmem_queue_comm_create", rc);
    shmem_barrier_all();
    double t = bench_now();
    for (uint64_t i = 0; i < x->r; i++)
        bench_commq_push_int64("indexgather", cq, &x->result[i], &x->table[x->soff[i]],
                               (int)x->spe[i], SHMEM_OP_GET);
    if ((rc = shmem_queue_local_flush(cq))) bench_die("indexgather", "shmem_queue_local_flush", rc);
    shmem_barrier_all();
    t = bench_now() - t;
    if (x->on_queue) x->on_queue(cq, x->on_queue_arg);
    if ((rc = shmem_queue_comm_destroy(cq))) bench_die("indexgather", "comm destroy", rc);
    return t;
}

#endif
