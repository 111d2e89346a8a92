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

#include "indexgather_kernels.h"


static void die(const char *what, int rc)
{
    bench_die("indexgather", what, rc);
}

static int wanted(const ig_t *x, const char *name)
{
    return bench_wanted(x->only, name);
}


static double k_shmem_g(ig_t *x)
{
    shmem_barrier_all();
    double t = bench_now();
    for (uint64_t i = 0; i < x->rg; i++) x->result[i] = shmem_int64_g(&x->table[x->soff[i]], x->spe[i]);
    shmem_barrier_all();
    return bench_now() - t;
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
    shmem_queue_t rq = ig_data_queue(sizeof(uint64_t), x->dqbytes);
    shmem_queue_t cq;
    int rc = bench_commq_create(&cq, SHMEM_OP_PUT, x->qelems);
    if (rc) die("shmem_queue_comm_create", rc);
    const size_t cap = 65536;
    uint64_t *req = malloc(cap * sizeof(uint64_t));
    shmem_barrier_all();
    double t = bench_now();
    uint64_t i = 0;
    for (;;) {
        ig_push_requests(x, rq, &i);
        ig_flush_ok(rq);
        /* Vote now, overlapped with the replies (as ig_dataq overlaps it with its reply
         * flush): a PE that has pushed every request and whose flush delivered them all
         * (nothing left outgoing) gets its last answers in this round; when all are such
         * PEs, this round's replies and their flush finish the gather. */
        size_t rin, rout;
        ig_data_size(rq, &rin, &rout, SHMEM_QUEUE_ANY_PE);
        int mine = i == x->r && rout == 0, all = 0;
        MPI_Request vote;
        vote_start(&mine, &all, &vote);
        for (int s = 0; s < x->npes; s++) {
            size_t in, out;
            ig_data_size(rq, &in, &out, s);
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
    int64_t *expect;
    ig_make_data(&x, seed, &expect);
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
            case V_DQ: t = ig_dataq(&x); break;
            case V_DQCQ: t = k_dataq_commq(&x); break;
            case V_CQG: t = ig_commq_get(&x); break;
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
