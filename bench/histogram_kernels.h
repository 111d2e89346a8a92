/* bench/histogram_kernels.h: the histogram benchmark's data and its queue kernels
 * (comm queue, data queue), shared by bench/histogram.c and bench/scale.c so both run
 * the very same code. Each kernel returns this PE's time; the caller checks the table. */
#ifndef BENCH_HISTOGRAM_KERNELS_H
#define BENCH_HISTOGRAM_KERNELS_H

#include <shmem.h>
#include <shmemx.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

typedef struct {
    int me, npes;
    uint64_t n;        /* updates per PE */
    uint64_t na;       /* updates per PE for the per-element atomics */
    uint64_t tpp;      /* counters per PE */
    uint64_t qelems;   /* comm queue max_elems (0: library default) */
    uint64_t dqbytes;  /* data queue max_bytes per peer */
    uint64_t bucket;   /* raw MPI bucket: updates per MPI_Accumulate */
    int reps;
    const char *only;  /* comma list of variants to run, NULL: all */
    uint32_t *dpe;     /* destination PE of update i */
    uint64_t *doff;    /* offset on that PE */
    int64_t *counts;   /* the symmetric table */
    /* mpi_alltoallv's buffers: allocated and touched once, reused by every rep, as a
     * careful MPI program would (a fresh 64 MiB buffer costs its first MPI_Alltoallv
     * ~0.4 s of page faults and UCX registration on MPICH here: that timed the allocator). */
    uint64_t *a2a_sbuf, *a2a_rbuf;
    uint64_t a2a_rcap;
    /* called with every queue a kernel made, after its last flush and before its
     * destroy (bench/scale reads shmemx_queue_usage there); NULL: not wanted */
    void (*on_queue)(shmem_queue_t q, void *arg);
    void *on_queue_arg;
} histo_t;

/* The updates of this PE (same for every variant and every run with one seed): update
 * i goes to (dpe[i], doff[i]); the expected table after all n (expect_n) and after the
 * first na (expect_a) updates of all PEs. */
static inline void histo_make_data(histo_t *h, uint64_t seed, int64_t **expect_n, int64_t **expect_a)
{
    uint64_t nglobal = h->tpp * (uint64_t)h->npes;
    uint64_t *gidx = malloc(h->n * sizeof(uint64_t));
    h->dpe = malloc(h->n * sizeof(uint32_t));
    h->doff = malloc(h->n * sizeof(uint64_t));
    for (uint64_t i = 0; i < h->n; i++) {
        gidx[i] = bench_histo_index(seed, h->me, i, nglobal);
        h->dpe[i] = (uint32_t)(gidx[i] % h->npes);
        h->doff[i] = gidx[i] / h->npes;
    }
    *expect_n = bench_histo_expected(gidx, h->n, h->tpp, h->npes);
    *expect_a = bench_histo_expected(gidx, h->na, h->tpp, h->npes);
    free(gidx);
}

/* env: NULL or "NAME=value" set for the create only (the comm queue reads it there). */
static inline double histo_commq(histo_t *h, int64_t *table, const char *env)
{
    char name[64] = "", *old = NULL;
    if (env) {
        const char *eq = strchr(env, '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - env), env);
        if (getenv(name)) old = strdup(getenv(name));
        setenv(name, eq + 1, 1);
    }
    shmem_queue_t q;
    int rc = bench_commq_create(&q, SHMEM_OP_ATOMIC_ADD, h->qelems);
    if (env) {
        if (old) setenv(name, old, 1); else unsetenv(name);
        free(old);
    }
    if (rc) bench_die("histogram", "shmem_queue_comm_create", rc);

    const int64_t one = 1;
    /* locals whose address is never taken: stores into the queue cannot alias them, so
     * they stay in registers (q itself had its address passed to the create) */
    shmem_queue_t const cq = q;
    const uint32_t *dpe = h->dpe;
    const uint64_t *doff = h->doff;
    const uint64_t n = h->n;
    shmem_barrier_all();
    double t = bench_now();
    for (uint64_t i = 0; i < n; i++)
        bench_commq_push_int64("histogram", cq, &table[doff[i]], &one, (int)dpe[i],
                               SHMEM_OP_ATOMIC_ADD);
    if ((rc = shmem_queue_local_flush(q))) bench_die("histogram", "shmem_queue_local_flush", rc);
    shmem_barrier_all();
    t = bench_now() - t;
    if (h->on_queue) h->on_queue(q, h->on_queue_arg);
    if ((rc = shmem_queue_comm_destroy(q))) bench_die("histogram", "shmem_queue_comm_destroy", rc);
    return t;
}

static inline double histo_dataq(histo_t *h, int64_t *table)
{
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.max_bytes = h->dqbytes;
    c.data_elem_size = sizeof(uint64_t);
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    int rc = shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD);
    if (rc) bench_die("histogram", "shmem_queue_data_create", rc);
    const size_t cap = 65536; /* pop in chunks of this many elements */
    uint64_t *in = malloc(cap * sizeof(uint64_t));

    shmem_barrier_all();
    double t = bench_now();
    uint64_t i = 0;
    for (;;) {
        for (; i < h->n; i++) {
            rc = shmem_queue_data_push(q, &h->doff[i], 1, (int)h->dpe[i]);
            if (rc == SHMEM_QUEUE_ERR_FULL) break;
            if (rc) bench_die("histogram", "shmem_queue_data_push", rc);
        }
        rc = shmem_queue_global_flush(q); /* OVERFLOW: the rest moves next round */
        if (rc && rc != SHMEM_QUEUE_ERR_OVERFLOW) bench_die("histogram", "shmem_queue_global_flush", rc);
        size_t inb, outb;
        if ((rc = shmem_query_data_size(q, &inb, &outb, SHMEM_QUEUE_ANY_PE)))
            bench_die("histogram", "shmem_query_data_size", rc);
        for (size_t left = inb / sizeof(uint64_t); left > 0;) {
            size_t k = left < cap ? left : cap;
            if ((rc = shmem_queue_data_pop(q, in, k, SHMEM_QUEUE_ANY_PE)))
                bench_die("histogram", "shmem_queue_data_pop", rc);
            for (size_t j = 0; j < k; j++) table[in[j]]++;
            left -= k;
        }
        if (bench_all_true(i == h->n && outb == 0)) break;
    }
    shmem_barrier_all();
    t = bench_now() - t;
    free(in);
    if (h->on_queue) h->on_queue(q, h->on_queue_arg);
    if ((rc = shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD))) bench_die("histogram", "shmem_queue_data_destroy", rc);
    return t;
}

#endif
