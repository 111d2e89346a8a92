/*
 * indexgather.c: every PE owns T entries of a distributed int64 table and gathers R
 * entries at random global indices, three ways, verified against each other and
 * against the table's formula:
 *   1. get:   one shmem_int64_g per index (the reference);
 *   2. dataq: requests {index, return slot} go to the owners through a data queue; the
 *             owners pop, look up and send the answers back through a second data
 *             queue; the requesters pop and scatter;
 *   3. dq+cq: requests through a data queue; each owner answers with a SHMEM_OP_PUT of
 *             a stack variable into the requester's symmetric result array, pushed to
 *             a communication queue.
 * Small rooms are fine: every variant loops until all PEs are done, handling
 * SHMEM_QUEUE_ERR_FULL (flush, retry) and SHMEM_QUEUE_ERR_OVERFLOW (pop, flush again).
 *
 * What the proposal's version got wrong, fixed here:
 *  - the data-queue config set max_elems (a comm-queue field) from an undeclared
 *    buf_cnt instead of max_bytes;
 *  - `if (!shmem_queue_data_push(...)) break;` stopped on success (0) and, on
 *    FULL, counted the element as sent; it pushed an undeclared variable;
 *  - it called shmem_queue_progress on a data queue and never shmem_queue_global_flush
 *    before popping: data queues move data only in the collective flush;
 *  - it popped once, only what came from its own PE (pe = my_pe), and passed the byte
 *    count from shmem_query_data_size as an element count;
 *  - the unpacking masks (0xFF000000 >> 48, 0x00FF >> 32) dropped the PE and the
 *    index; the return slot was limited to 16 bits of a 32-bit field;
 *  - the comm queue was destroyed through a pointer to the handle;
 *  - tables came from rand() and nothing was ever checked.
 *
 * usage: indexgather [T entries per PE] [R requests per PE] [room elements per peer]
 * Prints Mupd/s (million gathered entries per second, all PEs together) per variant,
 * and CSV lines: csv,indexgather,<variant>,<npes>,<T>,<R>,<room>,<seconds>,<Mupd/s>
 */
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t index; /* local index at the owner */
    int64_t slot;  /* requester PE << 32 | result slot */
} req_t;

typedef struct {
    int64_t slot;
    int64_t value;
} ans_t;

static int64_t formula(int64_t g) { return (g * 2654435761LL) % 1000003 + g; }

/* ---- small reductions from puts and barriers (portable OpenSHMEM) ---- */
static int64_t *red_buf; /* 2 * npes: two halves used alternately */
static int red_half;

static int64_t all_reduce(int64_t v, int is_max)
{
    int n = shmem_n_pes(), me = shmem_my_pe();
    int64_t *slots = red_buf + (size_t)red_half * n;
    red_half ^= 1; /* the next call writes the other half: one barrier per call is enough */
    for (int p = 0; p < n; p++)
        shmem_int64_p(&slots[me], v, p);
    shmem_barrier_all();
    int64_t r = slots[0];
    for (int p = 1; p < n; p++)
        r = is_max ? (slots[p] > r ? slots[p] : r) : r + slots[p];
    return r;
}

static double now(void) { return MPI_Wtime(); }

#define CHECK(call)                                                                        \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        if (rc_ != 0) {                                                                    \
            fprintf(stderr, "PE %d: %s failed: %s\n", shmem_my_pe(), #call,                \
                    shmemx_queue_strerror(rc_));                                           \
            shmem_global_exit(1);                                                          \
        }                                                                                  \
    } while (0)

/* flush results may be OVERFLOW: some data stays outgoing and goes in a later flush */
static void flush(shmem_queue_t q)
{
    int rc = shmem_queue_global_flush(q);
    if (rc != 0 && rc != SHMEM_QUEUE_ERR_OVERFLOW) {
        fprintf(stderr, "PE %d: global flush: %s\n", shmem_my_pe(), shmemx_queue_strerror(rc));
        shmem_global_exit(1);
    }
}

/* Push requests from *next on until the room is full or all are queued. */
static void push_requests(shmem_queue_t q, const int64_t *idx, int64_t R, int64_t T,
                          int64_t *next)
{
    int me = shmem_my_pe();
    while (*next < R) {
        req_t r = {idx[*next] % T, ((int64_t)me << 32) | *next};
        int rc = shmem_queue_data_push(q, &r, 1, (int)(idx[*next] / T));
        if (rc == SHMEM_QUEUE_ERR_FULL)
            return;
        CHECK(rc);
        (*next)++;
    }
}

static size_t incoming_elems(shmem_queue_t q, size_t elem)
{
    size_t in, out;
    CHECK(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE));
    return in / elem;
}

static size_t queued_bytes(shmem_queue_t q)
{
    size_t in, out;
    CHECK(shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE));
    return in + out;
}

/* Variant 2: requests and answers both through data queues. */
static void gather_dataq(const int64_t *table, const int64_t *idx, int64_t *res, int64_t T,
                         int64_t R, uint64_t room)
{
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    c.data_elem_size = sizeof(req_t);
    c.max_bytes = room * sizeof(req_t);
    shmem_queue_t qreq, qans;
    CHECK(shmem_queue_data_create(&qreq, &c, SHMEM_TEAM_WORLD));
    c.data_elem_size = sizeof(ans_t);
    c.max_bytes = room * sizeof(ans_t);
    CHECK(shmem_queue_data_create(&qans, &c, SHMEM_TEAM_WORLD));

    size_t cap = 4096;
    req_t *rbuf = malloc(cap * sizeof *rbuf);
    ans_t *abuf = malloc(cap * sizeof *abuf);
    ans_t *pending = malloc(cap * sizeof *pending); /* answers that did not fit yet */
    size_t npend = 0, pend_at = 0;
    int64_t next = 0;
    for (;;) {
        push_requests(qreq, idx, R, T, &next);
        flush(qreq);
        /* Serve: answers held back first, then newly popped requests, while they fit. */
        for (;;) {
            while (pend_at < npend) {
                int rc = shmem_queue_data_push(qans, &pending[pend_at], 1,
                                               (int)(pending[pend_at].slot >> 32));
                if (rc == SHMEM_QUEUE_ERR_FULL)
                    break;
                CHECK(rc);
                pend_at++;
            }
            if (pend_at < npend)
                break; /* answer room full: the rest goes after the next flush */
            size_t k = incoming_elems(qreq, sizeof(req_t));
            if (k == 0)
                break;
            if (k > cap)
                k = cap;
            CHECK(shmem_queue_data_pop(qreq, rbuf, k, SHMEM_QUEUE_ANY_PE));
            for (size_t i = 0; i < k; i++)
                pending[i] = (ans_t){rbuf[i].slot, table[rbuf[i].index]};
            npend = k;
            pend_at = 0;
        }
        flush(qans);
        size_t k;
        while ((k = incoming_elems(qans, sizeof(ans_t))) > 0) {
            if (k > cap)
                k = cap;
            CHECK(shmem_queue_data_pop(qans, abuf, k, SHMEM_QUEUE_ANY_PE));
            for (size_t i = 0; i < k; i++)
                res[abuf[i].slot & 0xffffffff] = abuf[i].value;
        }
        /* Done when no PE has requests left to push, data queued, or answers held. */
        int64_t busy = (R - next) + (int64_t)(queued_bytes(qreq) + queued_bytes(qans)) +
                       (int64_t)(npend - pend_at);
        if (all_reduce(busy, 0) == 0)
            break;
    }
    free(rbuf), free(abuf), free(pending);
    CHECK(shmem_queue_data_destroy(&qreq, SHMEM_TEAM_WORLD));
    CHECK(shmem_queue_data_destroy(&qans, SHMEM_TEAM_WORLD));
}

/* Variant 3: requests through a data queue, answers as queued puts into res. */
static void gather_dq_cq(const int64_t *table, const int64_t *idx, int64_t *res, int64_t T,
                         int64_t R, uint64_t room)
{
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    c.data_elem_size = sizeof(req_t);
    c.max_bytes = room * sizeof(req_t);
    shmem_queue_t qreq, cq;
    CHECK(shmem_queue_data_create(&qreq, &c, SHMEM_TEAM_WORLD));
    shmem_queue_config_t cc = {0};
    cc.qtype = SHMEM_QUEUE_COMM;
    cc.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    cc.max_elems = room;
    cc.op_type = SHMEM_OP_PUT;
    cc.pe_type = SHMEM_PE_ALL;
    CHECK(shmem_queue_comm_create(&cq, &cc));

    size_t cap = 4096;
    req_t *rbuf = malloc(cap * sizeof *rbuf);
    int64_t next = 0;
    for (;;) {
        push_requests(qreq, idx, R, T, &next);
        flush(qreq);
        size_t k;
        while ((k = incoming_elems(qreq, sizeof(req_t))) > 0) {
            if (k > cap)
                k = cap;
            CHECK(shmem_queue_data_pop(qreq, rbuf, k, SHMEM_QUEUE_ANY_PE));
            for (size_t i = 0; i < k; i++) {
                int64_t value = table[rbuf[i].index]; /* a stack variable: push copies it */
                int pe = (int)(rbuf[i].slot >> 32);
                int64_t *dest = &res[rbuf[i].slot & 0xffffffff];
                int rc;
                while ((rc = shmem_int64_queue_comm_push(cq, dest, &value, 1, pe,
                                                         SHMEM_OP_PUT)) == SHMEM_QUEUE_ERR_FULL) {
                    int p = shmem_queue_progress(cq); /* frees room */
                    if (p < 0)
                        CHECK(p);
                }
                CHECK(rc);
            }
        }
        CHECK(shmem_queue_local_flush(cq)); /* answers complete at their targets */
        int64_t busy = (R - next) + (int64_t)queued_bytes(qreq);
        if (all_reduce(busy, 0) == 0)
            break; /* all_reduce's barrier: every PE's puts are complete and visible */
    }
    free(rbuf);
    CHECK(shmem_queue_data_destroy(&qreq, SHMEM_TEAM_WORLD));
    CHECK(shmem_queue_comm_destroy(cq));
}

static int64_t verify(const char *name, const int64_t *res, const int64_t *ref,
                      const int64_t *idx, int64_t R)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < R; i++)
        if (res[i] != formula(idx[i]) || (ref && res[i] != ref[i]))
            bad++;
    bad = all_reduce(bad, 0);
    if (bad && shmem_my_pe() == 0)
        printf("%s: %lld WRONG answers\n", name, (long long)bad);
    return bad;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int64_t T = argc > 1 ? atoll(argv[1]) : 1 << 16;
    int64_t R = argc > 2 ? atoll(argv[2]) : 20000;
    uint64_t room = argc > 3 ? strtoull(argv[3], NULL, 10) : 1024;
    if (T <= 0 || R <= 0 || R > INT32_MAX || room == 0) {
        if (me == 0)
            fprintf(stderr, "usage: %s [T>0] [0<R<2^31] [room>0]\n", argv[0]);
        shmem_finalize();
        return 2;
    }
    red_buf = shmem_calloc(2 * (size_t)n, sizeof(int64_t));
    int64_t *table = shmem_malloc((size_t)T * sizeof(int64_t));
    int64_t *res = shmem_malloc((size_t)R * sizeof(int64_t)); /* symmetric: variant 3 puts here */
    int64_t *ref = malloc((size_t)R * sizeof(int64_t));
    int64_t *idx = malloc((size_t)R * sizeof(int64_t));
    if (!red_buf || !table || !res || !ref || !idx) {
        fprintf(stderr, "PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }
    for (int64_t i = 0; i < T; i++)
        table[i] = formula((int64_t)me * T + i);
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
    for (int64_t i = 0; i < R; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        idx[i] = (int64_t)(x % (uint64_t)(T * n));
    }
    shmem_barrier_all();

    const char *names[3] = {"get", "dataq", "dataq+commq"};
    int64_t wrong = 0;
    for (int v = 0; v < 3; v++) {
        int64_t *out = v == 0 ? ref : res;
        memset(out, 0xff, (size_t)R * sizeof(int64_t));
        shmem_barrier_all();
        double t = now();
        if (v == 0) {
            for (int64_t i = 0; i < R; i++)
                ref[i] = shmem_int64_g(&table[idx[i] % T], (int)(idx[i] / T));
        } else if (v == 1) {
            gather_dataq(table, idx, res, T, R, room);
        } else {
            gather_dq_cq(table, idx, res, T, R, room);
        }
        shmem_barrier_all();
        t = now() - t;
        /* slowest PE's time, in microseconds to fit the integer reduction */
        double secs = (double)(all_reduce((int64_t)(t * 1e6), 1) + 1) * 1e-6; /* +1 us: never 0 */
        wrong += verify(names[v], out, v == 0 ? NULL : ref, idx, R);
        double mups = (double)R * n / secs / 1e6;
        if (me == 0) {
            printf("indexgather %-12s %d PEs: %.6f s, %.3f Mupd/s\n", names[v], n, secs, mups);
            printf("csv,indexgather,%s,%d,%lld,%lld,%llu,%.6f,%.4f\n", names[v], n, (long long)T,
                   (long long)R, (unsigned long long)room, secs, mups);
        }
    }
    if (me == 0)
        printf("indexgather: %s\n", wrong ? "FAILED" : "all variants agree with the table");
    shmem_free(res);
    shmem_free(table);
    shmem_free(red_buf);
    free(ref), free(idx);
    shmem_finalize();
    return wrong ? 1 : 0;
}
