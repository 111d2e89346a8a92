/* bench/indexgather.c: the bale index-gather kernel, every variant on the same data in
 * the same run, each answer checked exactly.
 *
 * Each PE owns T int64 table entries (symmetric); entry g of the global table (on PE
 * g % npes at offset g / npes) holds a known function of g. Each PE gathers R entries at
 * random global indices into a local array. Variants:
 *   shmem_g      shmem_int64_g per request (run on the first -g requests: it is slow; its
 *                rate is still per request)
 *   dataq        round trip through two data queues: requests (offset) to the owner,
 *                replies (value) back in the same per-source order, so the requester
 *                finds each slot in its own per-owner FIFO; global-flush rounds until
 *                every PE is done
 *   dataq_commq  requests through a data queue, replies as queued PUTs (comm queue,
 *                SHMEM_OP_PUT) straight into the requester's symmetric result array
 *   commq_get    one queued GET per request (comm queue, SHMEM_OP_GET) into the result
 *   mpi_alltoallv hand-written: MPI_Alltoall counts, MPI_Alltoallv of the offsets, local
 *                lookup, MPI_Alltoallv of the values back, unpermute
 * Each variant runs -r times; the reported time is the BEST run (min over runs of the
 * slowest PE's time). Rates are Mgather/s summed over all PEs.
 */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
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
} ig_t;

static void die(const char *what, int rc)
{
    bench_die("indexgather", what, rc);
}

static int wanted(const ig_t *x, const char *name)
{
    return bench_wanted(x->only, name);
}

static inline int64_t entry_value(uint64_t salt, uint64_t g) { return (int64_t)bench_mix64(salt ^ g); }

static double k_shmem_g(ig_t *x)
{
    shmem_barrier_all();
    double t = bench_now();
    for (uint64_t i = 0; i < x->rg; i++) x->result[i] = shmem_int64_g(&x->table[x->soff[i]], x->spe[i]);
    shmem_barrier_all();
    return bench_now() - t;
}

static shmem_queue_t data_queue(size_t elem, uint64_t bytes)
{
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.max_bytes = bytes;
    c.data_elem_size = elem;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    int rc = shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD);
    if (rc) die("shmem_queue_data_create", rc);
    return q;
}

static void flush_ok(shmem_queue_t q)
{
    int rc = shmem_queue_global_flush(q); /* OVERFLOW: the rest moves next round */
    if (rc && rc != SHMEM_QUEUE_ERR_OVERFLOW) die("shmem_queue_global_flush", rc);
}

/* k_dataq's flushes never overflow: every PE drains what arrived each round. */
static void flush_exact(shmem_queue_t q)
{
    int rc = shmem_queue_global_flush(q);
    if (rc) die("shmem_queue_global_flush", rc);
}

static void data_size(shmem_queue_t q, size_t *in, size_t *out, int pe)
{
    int rc = shmem_query_data_size(q, in, out, pe);
    if (rc) die("shmem_query_data_size", rc);
}

/* Push this PE's next requests (offset << 32 | slot) until the queue is full or all pushed. */
static void push_requests(ig_t *x, shmem_queue_t rq, uint64_t *i)
{
    for (; *i < x->r; (*i)++) {
        uint64_t req = x->soff[*i] << 32 | *i;
        int rc = shmem_queue_data_push(rq, &req, 1, (int)x->spe[*i]);
        if (rc == SHMEM_QUEUE_ERR_FULL) break;
        if (rc) die("shmem_queue_data_push", rc);
    }
}

/* Round trip through two data queues, the way a queue user would write it: each round
 * pushes requests (the owner's offset, 8 bytes) until a room is full, one flush, owners
 * answer every request with its value (8 bytes) in arrival order, one flush, requesters
 * pop the values. Queues keep per-source order, so a reply needs no slot: the requester
 * remembers, per owner, the slots of its requests in push order (a FIFO, like the
 * baseline's permutation). Requests are pushed one by one (the inline fast path);
 * owners and requesters pop and push what one source sent as one block. */
static double k_dataq(ig_t *x)
{
    shmem_queue_t rq = data_queue(sizeof(uint64_t), x->dqbytes);
    shmem_queue_t pq = data_queue(sizeof(int64_t), x->dqbytes);
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
            if (rc) die("shmem_queue_data_push", rc);
            slots[(size_t)p * cap + (tail[p]++ & mask)] = (uint32_t)i;
        }
        flush_exact(rq);
        /* answer in arrival order: everything from s in one pop, one push */
        for (int s = 0; s < np; s++) {
            size_t in, out;
            data_size(rq, &in, &out, s);
            size_t k = in / sizeof(uint64_t);
            if (k == 0) continue;
            if ((rc = shmem_queue_data_pop(rq, buf, k, s))) die("shmem_queue_data_pop", rc);
            for (size_t j = 0; j < k; j++) vals[j] = table[buf[j]];
            /* never FULL: both rooms hold the same number of elements, at most a room of
             * requests arrives per round and every PE drains its replies each round */
            if ((rc = shmem_queue_data_push(pq, vals, k, s))) die("reply push", rc);
        }
        /* Vote now, overlapped with the reply flush: a PE that has sent every request and
         * answered every one that arrived is done once this reply flush (which never
         * overflows) has delivered; when all are, the loop ends after this round. */
        size_t rin, rout;
        data_size(rq, &rin, &rout, SHMEM_QUEUE_ANY_PE);
        int mine = i == x->r && rin == 0 && rout == 0, all = 0;
        MPI_Request vote;
        MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD, &vote);
        flush_exact(pq);
        for (int s = 0; s < np; s++) {
            size_t in, out;
            data_size(pq, &in, &out, s);
            size_t k = in / sizeof(int64_t);
            if (k == 0) continue;
            if ((rc = shmem_queue_data_pop(pq, vals, k, s))) die("shmem_queue_data_pop", rc);
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
    if ((rc = shmem_queue_data_destroy(&rq, SHMEM_TEAM_WORLD))) die("data destroy", rc);
    if ((rc = shmem_queue_data_destroy(&pq, SHMEM_TEAM_WORLD))) die("data destroy", rc);
    return t;
}

/* Termination vote that keeps the comm queue's target side running: a PE still in
 * shmem_queue_local_flush may need this PE to apply its queued PUTs (active-message
 * path), which a plain blocking MPI_Allreduce would not do. Started before the replies
 * and finished after them, so its latency overlaps the reply work. */
static void vote_start(int *ok, int *all, MPI_Request *req)
{
    MPI_Iallreduce(ok, all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD, req);
}

static void vote_finish(MPI_Request *req, shmem_queue_t cq)
{
    int done = 0;
    for (;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done) return;
        int p = shmem_queue_progress(cq);
        if (p < 0) die("shmem_queue_progress", p);
    }
}

static double k_dataq_commq(ig_t *x)
{
    shmem_queue_t rq = data_queue(sizeof(uint64_t), x->dqbytes);
    shmem_queue_t cq;
    int rc = bench_commq_create(&cq, SHMEM_OP_PUT, x->qelems);
    if (rc) die("shmem_queue_comm_create", rc);
    const size_t cap = 65536;
    uint64_t *req = malloc(cap * sizeof(uint64_t));
    shmem_barrier_all();
    double t = bench_now();
    uint64_t i = 0;
    for (;;) {
        push_requests(x, rq, &i);
        flush_ok(rq);
        /* Vote now, overlapped with the replies (as k_dataq overlaps it with its reply
         * flush): a PE that has pushed every request and whose flush delivered them all
         * (nothing left outgoing) gets its last answers in this round; when all are such
         * PEs, this round's replies and their flush finish the gather. */
        size_t rin, rout;
        data_size(rq, &rin, &rout, SHMEM_QUEUE_ANY_PE);
        int mine = i == x->r && rout == 0, all = 0;
        MPI_Request vote;
        vote_start(&mine, &all, &vote);
        for (int s = 0; s < x->npes; s++) {
            size_t in, out;
            data_size(rq, &in, &out, s);
            for (size_t left = in / sizeof(uint64_t); left > 0;) {
                size_t k = left < cap ? left : cap;
                if ((rc = shmem_queue_data_pop(rq, req, k, s))) die("shmem_queue_data_pop", rc);
                for (size_t j = 0; j < k; j++) {
                    int64_t v = x->table[req[j] >> 32];
                    int64_t *dst = &x->result[req[j] & 0xffffffffu];
                    bench_commq_push_int64("indexgather", cq, dst, &v, s, SHMEM_OP_PUT);
                }
                left -= k;
            }
        }
        /* replies remotely complete before the vote can end the loop */
        if ((rc = shmem_queue_local_flush(cq))) die("shmem_queue_local_flush", rc);
        vote_finish(&vote, cq);
        if (all) break;
    }
    shmem_barrier_all();
    t = bench_now() - t;
    free(req);
    if ((rc = shmem_queue_data_destroy(&rq, SHMEM_TEAM_WORLD))) die("data destroy", rc);
    if ((rc = shmem_queue_comm_destroy(cq))) die("comm destroy", rc);
    return t;
}

/* One queued GET per request (comm queue, SHMEM_OP_GET) straight into the result
 * slot: the queue turns them into a few MPI_Get calls with indexed datatypes. */
static double k_commq_get(ig_t *x)
{
    shmem_queue_t cq;
    int rc = bench_commq_create(&cq, SHMEM_OP_GET, x->qelems);
    if (rc) die("shmem_queue_comm_create", rc);
    shmem_barrier_all();
    double t = bench_now();
    for (uint64_t i = 0; i < x->r; i++)
        bench_commq_push_int64("indexgather", cq, &x->result[i], &x->table[x->soff[i]],
                               (int)x->spe[i], SHMEM_OP_GET);
    if ((rc = shmem_queue_local_flush(cq))) die("shmem_queue_local_flush", rc);
    shmem_barrier_all();
    t = bench_now() - t;
    if ((rc = shmem_queue_comm_destroy(cq))) die("comm destroy", rc);
    return t;
}

static double k_mpi_alltoallv(ig_t *x)
{
    int np = x->npes;
    int *sc = calloc(np, sizeof(int)), *rc = calloc(np, sizeof(int));
    int *sd = calloc(np, sizeof(int)), *rd = calloc(np, sizeof(int));
    int *pos = calloc(np, sizeof(int));
    if (!x->a2a_sbuf) { /* untimed, first rep only: size and touch the buffers */
        size_t nreq = x->r ? x->r : 1;
        x->a2a_rcap = bench_a2a_counts(x->spe, x->r, np, sc, rc);
        size_t ncap = x->a2a_rcap ? x->a2a_rcap : 1;
        x->a2a_sbuf = calloc(nreq, sizeof(uint64_t));
        x->a2a_perm = calloc(nreq, sizeof(uint64_t));
        x->a2a_back = calloc(nreq, sizeof(int64_t));
        x->a2a_rbuf = calloc(ncap, sizeof(uint64_t));
        x->a2a_vals = calloc(ncap, sizeof(int64_t));
    }
    uint64_t *sbuf = x->a2a_sbuf, *perm = x->a2a_perm, *rbuf = x->a2a_rbuf;
    int64_t *back = x->a2a_back, *vals = x->a2a_vals;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = bench_now();
    uint64_t nr = bench_a2a_counts(x->spe, x->r, np, sc, rc);
    for (int p = 0; p < np; p++) {
        sd[p] = p ? sd[p - 1] + sc[p - 1] : 0;
        rd[p] = p ? rd[p - 1] + rc[p - 1] : 0;
        pos[p] = sd[p];
    }
    if (nr > x->a2a_rcap) die("mpi_alltoallv receive count changed", (int)nr);
    for (uint64_t i = 0; i < x->r; i++) {
        int k = pos[x->spe[i]]++;
        sbuf[k] = x->soff[i];
        perm[k] = i;
    }
    MPI_Alltoallv(sbuf, sc, sd, MPI_UINT64_T, rbuf, rc, rd, MPI_UINT64_T, MPI_COMM_WORLD);
    for (uint64_t j = 0; j < nr; j++) vals[j] = x->table[rbuf[j]];
    MPI_Alltoallv(vals, rc, rd, MPI_INT64_T, back, sc, sd, MPI_INT64_T, MPI_COMM_WORLD);
    for (uint64_t k = 0; k < x->r; k++) x->result[perm[k]] = back[k];
    MPI_Barrier(MPI_COMM_WORLD);
    t = bench_now() - t;
    free(sc); free(rc); free(sd); free(rd); free(pos);
    return t;
}

enum { V_G, V_DQ, V_DQCQ, V_CQG, V_A2A, NV };
static const char *vname[NV] = {"shmem_g", "dataq", "dataq_commq", "commq_get", "mpi_alltoallv"};

static void usage(void)
{
    fprintf(stderr, "usage: indexgather [-n requests/PE] [-g shmem_g requests/PE] [-t entries/PE]\n"
                    "                   [-r reps] [-q commq max_elems] [-b dataq bytes/peer]\n"
                    "                   [-s seed] [-v variant,variant] [-o csv]\n");
}

int main(int argc, char **argv)
{
    shmem_init();
    ig_t x = {0};
    x.me = shmem_my_pe();
    x.npes = shmem_n_pes();
    x.r = 2000000;
    x.rg = 20000;
    x.tpp = 100000;
    /* 256 KiB per peer and queue: the rooms of both queues (2 x 2 x npes x 256 KiB)
     * stay in the L2 cache at 2 PEs; docs/data_queues.md has the sweep */
    x.dqbytes = 256 << 10;
    x.reps = 3;
    uint64_t seed = 0x1d6a;
    const char *out = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "n:g:t:r:q:b:s:v:o:h")) != -1) {
        switch (opt) {
        case 'n': x.r = strtoull(optarg, NULL, 0); break;
        case 'g': x.rg = strtoull(optarg, NULL, 0); break;
        case 't': x.tpp = strtoull(optarg, NULL, 0); break;
        case 'r': x.reps = atoi(optarg); break;
        case 'q': x.qelems = strtoull(optarg, NULL, 0); break;
        case 'b': x.dqbytes = bench_bytes("indexgather", optarg); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'v': x.only = optarg; break;
        case 'o': out = optarg; break;
        default:
            if (x.me == 0) usage();
            shmem_finalize();
            return opt == 'h' ? 0 : 1;
        }
    }
    if (x.rg > x.r) x.rg = x.r;
    /* slots and offsets are packed into 32 bits each in the request words */
    if (x.tpp == 0 || x.tpp > UINT32_MAX || x.r == 0 || x.r > UINT32_MAX || x.reps < 1 ||
        x.dqbytes < sizeof(uint64_t)) {
        if (x.me == 0) usage();
        shmem_finalize();
        return 1;
    }
    x.salt = bench_mix64(seed + 1);
    uint64_t nglobal = x.tpp * (uint64_t)x.npes;
    x.table = shmem_malloc(x.tpp * sizeof(int64_t));
    x.result = shmem_malloc(x.r * sizeof(int64_t));
    for (uint64_t o = 0; o < x.tpp; o++) x.table[o] = entry_value(x.salt, o * x.npes + x.me);
    x.spe = malloc(x.r * sizeof(uint32_t));
    x.soff = malloc(x.r * sizeof(uint64_t));
    int64_t *expect = malloc(x.r * sizeof(int64_t));
    for (uint64_t i = 0; i < x.r; i++) {
        uint64_t g = bench_histo_index(seed, x.me, i, nglobal);
        x.spe[i] = (uint32_t)(g % x.npes);
        x.soff[i] = g / x.npes;
        expect[i] = entry_value(x.salt, g);
    }
    shmem_barrier_all();

    if (x.me == 0)
        printf("indexgather: %d PEs, %llu requests/PE (%llu for shmem_g), %llu entries/PE, "
               "best of %d runs, %s\n",
               x.npes, (unsigned long long)x.r, (unsigned long long)x.rg,
               (unsigned long long)x.tpp, x.reps, bench_mpi_name());
    int all_ok = 1;
    for (int v = 0; v < NV; v++) {
        if (!wanted(&x, vname[v])) continue;
        double best = 0;
        int ok = 1;
        uint64_t nr = v == V_G ? x.rg : x.r;
        for (int rep = 0; rep < x.reps; rep++) {
            memset(x.result, 0, x.r * sizeof(int64_t));
            shmem_barrier_all();
            double t = 0;
            switch (v) {
            case V_G: t = k_shmem_g(&x); break;
            case V_DQ: t = k_dataq(&x); break;
            case V_DQCQ: t = k_dataq_commq(&x); break;
            case V_CQG: t = k_commq_get(&x); break;
            case V_A2A: t = k_mpi_alltoallv(&x); break;
            }
            bench_mam_t m = bench_min_avg_max(t);
            if (rep == 0 || m.max < best) best = m.max;
            int mine = 1;
            for (uint64_t i = 0; i < nr; i++)
                if (x.result[i] != expect[i]) mine = 0;
            ok &= bench_all_true(mine);
        }
        bench_result_t *res = bench_record(vname[v], x.npes, nr, x.tpp, best, x.reps, ok);
        if (x.me == 0)
            printf("%-14s: %10.3f Mgather/s summed over %d PEs (%.4f s, %llu req/PE) %s\n",
                   vname[v], res->rate, x.npes, best, (unsigned long long)nr,
                   ok ? "OK" : "WRONG");
        all_ok &= ok;
    }
    if (x.me == 0) {
        const bench_result_t *a = bench_find("dataq"), *q = NULL;
        static const char *qv[] = {"dataq", "dataq_commq", "commq_get"};
        for (int k = 0; k < 3; k++) {
            const bench_result_t *b = bench_find(qv[k]);
            if (b && b->ok && (!q || b->rate > q->rate)) q = b;
        }
        if (q) {
            char what[96];
            snprintf(what, sizeof what, "best queue (%s) / shmem_g", q->name);
            /* 50x was set while shmem_g went through MPI at ~2 M/s; between node peers it is
             * a copy now (tens of M/s), so the ratio is reported against the MPI figure's
             * target only when shmem_g is that slow (docs/design.md, node transport) */
            const bench_result_t *g = bench_find("shmem_g");
            bench_ratio(what, q, g, g && g->rate < 10.0 ? 50.0 : 1.0);
        }
        bench_ratio("dataq / mpi_alltoallv", a, bench_find("mpi_alltoallv"), 0.9);
        /* issue 12: the one-sided patterns against the hand-written MPI_Alltoallv */
        bench_ratio("commq_get / mpi_alltoallv", bench_find("commq_get"),
                    bench_find("mpi_alltoallv"), 0.8);
        bench_ratio("dataq_commq / mpi_alltoallv", bench_find("dataq_commq"),
                    bench_find("mpi_alltoallv"), 0.8);
        fflush(stdout);
        bench_write_csv(out, "indexgather", bench_mpi_name(), "mgather_per_s");
    }
    shmem_free(x.result);
    shmem_free(x.table);
    free(x.spe);
    free(x.soff);
    free(x.a2a_sbuf);
    free(x.a2a_perm);
    free(x.a2a_back);
    free(x.a2a_rbuf);
    free(x.a2a_vals);
    free(expect);
    shmem_finalize();
    return all_ok ? 0 : 1;
}
