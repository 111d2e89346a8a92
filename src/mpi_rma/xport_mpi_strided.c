/* xport_mpi_strided.c: the MPI transport's strided transfers (xport.h,
 * shmemi_mpi_strided): n blocks of blk bytes, strides in bytes (strided.c checks them).
 *
 * Methods (docs/strided.md):
 *   contiguous  one block, or both strides equal the block: one plain MPI_Put/MPI_Get
 *   vector      one MPI_Put/MPI_Get with MPI_Type_create_hvector on both sides
 *   blocks      one contiguous MPI_Put/MPI_Get per block
 *   pack        copy the local blocks into a contiguous buffer, one MPI_Put with a
 *               target-side hvector (get: MPI_Get into the buffer, then unpack)
 * The table (strided_table.c) picks one per call, the run-time picker below chooses
 * between a cell's two candidates. Committed hvector types are cached by
 * (block, stride, count) so repeated shapes cost no type creation.
 *
 * Completion matches shmem_put/get: put returns after MPI_Win_flush_local (source
 * reusable), get after MPI_Win_flush (data arrived). */
#include "strided_impl.h"
#include "xport_mpi.h"
#include <pthread.h>

/* ---- committed-datatype cache: 2-way set associative; the entry fetched first in a
 * call is never evicted by the second fetch of the same call ---- */
#define TC_SETS 64
typedef struct {
    size_t blk;
    ptrdiff_t stride;
    int count;
    MPI_Datatype type;
    unsigned long used; /* last use, for LRU */
} tc_entry_t;

static tc_entry_t tc[TC_SETS][2];
static unsigned long tc_clock;
static pthread_mutex_t tc_lock = PTHREAD_MUTEX_INITIALIZER;
static int tc_keyval = MPI_KEYVAL_INVALID;

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: free the cached types there,
 * while MPI is still usable, without a hook in shmem_finalize. */
static int tc_release(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)attr, (void)extra;
    pthread_mutex_lock(&tc_lock);
    for (int s = 0; s < TC_SETS; s++)
        for (int w = 0; w < 2; w++)
            if (tc[s][w].type != MPI_DATATYPE_NULL && tc[s][w].type != 0) {
                MPI_Type_free(&tc[s][w].type);
                tc[s][w].type = MPI_DATATYPE_NULL;
            }
    tc_keyval = MPI_KEYVAL_INVALID;
    pthread_mutex_unlock(&tc_lock);
    return MPI_SUCCESS;
}

static void tc_init_locked(void)
{
    if (tc_keyval != MPI_KEYVAL_INVALID)
        return;
    for (int s = 0; s < TC_SETS; s++)
        for (int w = 0; w < 2; w++)
            tc[s][w].type = MPI_DATATYPE_NULL;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, tc_release, &tc_keyval, NULL) ==
        MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, tc_keyval, NULL);
}

/* A committed hvector of count blocks of blk bytes, stride bytes apart. Call with tc_lock
 * held; `keep` is a type this call already holds and must not lose. */
static MPI_Datatype tc_get(const char *routine, size_t blk, ptrdiff_t stride, int count,
                           MPI_Datatype keep)
{
    uint64_t h = (uint64_t)blk * 0x9E3779B97F4A7C15ull ^ (uint64_t)stride * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)count * 0x165667B19E3779F9ull;
    tc_entry_t *set = tc[(h >> 32) % TC_SETS];
    tc_clock++;
    for (int w = 0; w < 2; w++)
        if (set[w].type != MPI_DATATYPE_NULL && set[w].blk == blk && set[w].stride == stride &&
            set[w].count == count) {
            set[w].used = tc_clock;
            return set[w].type;
        }
    int victim;
    if (set[0].type == MPI_DATATYPE_NULL)
        victim = 0;
    else if (set[1].type == MPI_DATATYPE_NULL)
        victim = 1;
    else
        victim = set[0].used <= set[1].used ? 0 : 1;
    if (set[victim].type != MPI_DATATYPE_NULL && set[victim].type == keep)
        victim ^= 1;
    if (set[victim].type != MPI_DATATYPE_NULL)
        MPI_Type_free(&set[victim].type); /* MPI keeps it alive for pending operations */
    MPI_Datatype t;
    SHMEMI_MPI_CHECK(routine, MPI_Type_create_hvector(count, (int)blk, (MPI_Aint)stride,
                                                      MPI_BYTE, &t));
    SHMEMI_MPI_CHECK(routine, MPI_Type_commit(&t));
    set[victim] = (tc_entry_t){blk, stride, count, t, tc_clock};
    return t;
}

/* ---- scratch buffer for pack/unpack, one per thread, kept between calls ---- */
#define PACK_ROUND ((size_t)4 << 20) /* bytes packed per MPI call at most */
static _Thread_local char *scratch;
static _Thread_local size_t scratch_size;

static char *scratch_get(size_t n)
{
    if (n > scratch_size) {
        free(scratch);
        scratch = malloc(n);
        scratch_size = scratch ? n : 0;
    }
    return scratch;
}

/* ---- one transfer ---- */
typedef struct {
    const char *routine;
    int is_get;
    int rank;
    MPI_Win win;
    char *local;      /* first local block */
    ptrdiff_t lstride;
    MPI_Aint disp;    /* first remote block */
    ptrdiff_t rstride;
    size_t blk;
    size_t n;
} xfer_t;

static inline void rma_bytes(const xfer_t *x, char *local, MPI_Aint disp, size_t len)
{
    SHMEMI_MPI_CHECK(x->routine, shmemi_mpi_bytes(x->is_get, local, len, x->rank, disp, x->win));
}

static void do_blocks(const xfer_t *x)
{
    for (size_t k = 0; k < x->n; k++)
        rma_bytes(x, x->local + (ptrdiff_t)k * x->lstride,
                  x->disp + (MPI_Aint)k * (MPI_Aint)x->rstride, x->blk);
}

/* Blocks per MPI call so that one call carries at most `cap` bytes. */
static inline size_t group_of(size_t blk, size_t n, size_t cap)
{
    size_t g = cap / blk;
    if (g == 0)
        g = 1;
    if (g > (size_t)INT32_MAX)
        g = INT32_MAX;
    return g < n ? g : n;
}

/* One side of a typed transfer of cnt blocks: MPI_BYTE and cnt*blk bytes when the
 * side is contiguous (stride == blk), else a cached hvector and a count of 1. Call with
 * tc_lock held; `keep` as tc_get's. */
static MPI_Datatype side_type(const xfer_t *x, ptrdiff_t stride, int cnt, MPI_Datatype keep,
                              int *count)
{
    if (stride == (ptrdiff_t)x->blk) {
        *count = cnt * (int)x->blk;
        return MPI_BYTE;
    }
    *count = 1;
    return tc_get(x->routine, x->blk, stride, cnt, keep);
}

/* The one MPI_Get/MPI_Put of the typed methods (vector, pack). */
static void rma_typed(const xfer_t *x, char *local, int ocount, MPI_Datatype otype,
                      MPI_Aint disp, int tcount, MPI_Datatype ttype)
{
    if (x->is_get)
        SHMEMI_MPI_CHECK(x->routine,
                         MPI_Get(local, ocount, otype, x->rank, disp, tcount, ttype, x->win));
    else
        SHMEMI_MPI_CHECK(x->routine,
                         MPI_Put(local, ocount, otype, x->rank, disp, tcount, ttype, x->win));
}

static void do_vector(const xfer_t *x)
{
    if (x->blk > SHMEMI_MAX_MPI_COUNT) { /* int block length: such blocks go one by one */
        do_blocks(x);
        return;
    }
    size_t g = group_of(x->blk, x->n, SHMEMI_MAX_MPI_COUNT);
    for (size_t k = 0; k < x->n; k += g) {
        int cnt = (int)(x->n - k < g ? x->n - k : g);
        char *local = x->local + (ptrdiff_t)k * x->lstride;
        MPI_Aint disp = x->disp + (MPI_Aint)k * (MPI_Aint)x->rstride;
        int ocount, tcount;
        pthread_mutex_lock(&tc_lock);
        tc_init_locked();
        MPI_Datatype otype = side_type(x, x->lstride, cnt, MPI_DATATYPE_NULL, &ocount);
        MPI_Datatype ttype = side_type(x, x->rstride, cnt, otype, &tcount);
        rma_typed(x, local, ocount, otype, disp, tcount, ttype);
        pthread_mutex_unlock(&tc_lock);
    }
}

/* Copies n blocks of blk bytes between a strided side and a contiguous one. Small
 * blocks get a fixed-size copy the compiler turns into moves: a libc memcpy call per
 * 8-byte block cost more than the block (the pack method's strength is many small
 * blocks). */
#define STRIDED_COPY_LOOP(SZ)                                                            \
    if (to_contig)                                                                       \
        for (size_t i = 0; i < n; i++)                                                   \
            memcpy(contig + i * (SZ), strided + (ptrdiff_t)i * stride, (SZ));            \
    else                                                                                 \
        for (size_t i = 0; i < n; i++)                                                   \
            memcpy(strided + (ptrdiff_t)i * stride, contig + i * (SZ), (SZ));
static void copy_blocks(char *strided, ptrdiff_t stride, char *contig, size_t blk, size_t n,
                        int to_contig)
{
    switch (blk) {
    case 4: STRIDED_COPY_LOOP(4) break;
    case 8: STRIDED_COPY_LOOP(8) break;
    case 16: STRIDED_COPY_LOOP(16) break;
    case 32: STRIDED_COPY_LOOP(32) break;
    default: STRIDED_COPY_LOOP(blk) break;
    }
}
#undef STRIDED_COPY_LOOP

static void do_pack(const xfer_t *x)
{
    if (x->blk > SHMEMI_MAX_MPI_COUNT) {
        do_blocks(x);
        return;
    }
    int lcontig = x->lstride == (ptrdiff_t)x->blk;
    if (lcontig) { /* nothing to pack: the vector method is the same transfer */
        do_vector(x);
        return;
    }
    size_t g = group_of(x->blk, x->n, PACK_ROUND);
    char *buf = scratch_get(g * x->blk);
    if (!buf) { /* no memory for the buffer: the per-block method needs none */
        do_blocks(x);
        return;
    }
    for (size_t k = 0; k < x->n; k += g) {
        size_t cnt = x->n - k < g ? x->n - k : g;
        char *local = x->local + (ptrdiff_t)k * x->lstride;
        MPI_Aint disp = x->disp + (MPI_Aint)k * (MPI_Aint)x->rstride;
        int bytes = (int)(cnt * x->blk);
        if (!x->is_get)
            copy_blocks(local, x->lstride, buf, x->blk, cnt, 1);
        int tcount;
        pthread_mutex_lock(&tc_lock);
        tc_init_locked();
        MPI_Datatype ttype = side_type(x, x->rstride, (int)cnt, MPI_DATATYPE_NULL, &tcount);
        rma_typed(x, buf, bytes, MPI_BYTE, disp, tcount, ttype);
        pthread_mutex_unlock(&tc_lock);
        /* the buffer is reused next round: complete this one first */
        if (x->is_get) {
            SHMEMI_MPI_CHECK(x->routine, MPI_Win_flush(x->rank, x->win));
            copy_blocks(local, x->lstride, buf, x->blk, cnt, 0);
        } else if (k + g < x->n) {
            SHMEMI_MPI_CHECK(x->routine, MPI_Win_flush_local(x->rank, x->win));
        }
    }
}

/* ---- run-time choice between a cell's two candidate methods ----
 * For shapes whose table cell names an alternative (rule "A/B"), the engine keeps, per
 * thread and exact shape, a smoothed time for each of the two methods, from SAMPLE calls
 * timed from issue to remote completion: the first four calls alternate A, B, A, B (a
 * method's first call may create its datatypes); then the faster one runs, every
 * AD_EXPLORE-th call runs the other, and both that call and the one halfway to the next
 * exploration are samples (2 of AD_EXPLORE calls); the other calls are not timed. A get
 * is complete when it returns; a sample put ends with MPI_Win_flush instead of
 * MPI_Win_flush_local (a put returns at local completion, which says little about a
 * method whose work happens at the target, such as a target datatype applied by MPICH's
 * active messages), so the next quiet has less to wait for. One sample moves the estimate
 * by half, at most doubling it (one preempted call must not condemn a method). Per thread
 * (no lock: a call that is not a sample costs a few compares), 64 shapes, direct-mapped;
 * a new shape evicts. */
#define AD_SLOTS 64
#define AD_EXPLORE 8
typedef struct {
    size_t blk, n;
    ptrdiff_t ds, ss;
    int is_get;
    unsigned char m[2];
    unsigned char nsamples[2];
    double t[2];
    unsigned calls;
} ad_entry_t;

static _Thread_local ad_entry_t ad[AD_SLOTS];

static inline unsigned ad_slot(int is_get, size_t blk, ptrdiff_t ds, ptrdiff_t ss, size_t n)
{
    uint64_t h = (uint64_t)blk * 0x9E3779B97F4A7C15ull ^ (uint64_t)ds * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)ss * 0x27D4EB2F165667C5ull ^ (uint64_t)n * 0x165667B19E3779F9ull ^
                 (uint64_t)is_get;
    return (unsigned)((h >> 32) % AD_SLOTS);
}

/* The entry of this shape and method pair (reset when another shape held the slot). */
static ad_entry_t *ad_entry(int is_get, size_t blk, ptrdiff_t ds, ptrdiff_t ss, size_t n,
                            int m0, int m1)
{
    ad_entry_t *e = &ad[ad_slot(is_get, blk, ds, ss, n)];
    if (!(e->calls && e->is_get == is_get && e->blk == blk && e->ds == ds && e->ss == ss &&
          e->n == n && e->m[0] == m0 && e->m[1] == m1))
        *e = (ad_entry_t){blk, n, ds, ss, is_get, {(unsigned char)m0, (unsigned char)m1},
                          {0, 0}, {0, 0}, 0};
    return e;
}

/* Which method this call uses (0: the table's, 1: its alternative); *sample: time it. */
static int ad_pick(ad_entry_t *e, int *sample)
{
    unsigned c = e->calls++;
    if (e->nsamples[0] < 2 || e->nsamples[1] < 2) {
        *sample = 1;
        return e->nsamples[0] > e->nsamples[1];
    }
    int k = e->t[1] < e->t[0];
    *sample = c % (AD_EXPLORE / 2) == 0;
    return c % AD_EXPLORE == 0 ? !k : k;
}

static void ad_record(ad_entry_t *e, int k, double dt)
{
    if (e->nsamples[k] == 0)
        e->t[k] = dt;
    else if (e->nsamples[k] == 1)
        e->t[k] = dt < e->t[k] ? dt : e->t[k];
    else
        e->t[k] = 0.5 * e->t[k] + 0.5 * (dt < 2 * e->t[k] ? dt : 2 * e->t[k]);
    if (e->nsamples[k] < 2)
        e->nsamples[k]++;
}

void shmemi_mpi_strided(const char *routine, const shmemi_target_t *t, int is_get, char *local,
                        ptrdiff_t lstride, ptrdiff_t rstride, size_t blk, size_t n)
{
    xfer_t x = {routine, is_get, t->rank, t->win, local, lstride, t->disp, rstride, blk, n};
    ptrdiff_t ds = is_get ? lstride : rstride, ss = is_get ? rstride : lstride;
    int method = shmemi_strided_get_method();
    int alt = 0, k = 0, sample = 0;
    ad_entry_t *ade = NULL;
    double t0 = 0;
    if (method == SHMEMI_STRIDED_AUTO) {
        if (n == 1 || (ds == (ptrdiff_t)blk && ss == (ptrdiff_t)blk)) { /* contiguous */
            rma_bytes(&x, x.local, x.disp, n * blk);
            method = -1;
        } else {
            /* the last strided shape this thread sent, and its table entry: repeated
             * shapes (the common case) skip the lookup */
            static _Thread_local struct {
                size_t blk, n;
                ptrdiff_t ds, ss;
                int is_get, method, alt;
                unsigned gen;
            } memo;
            unsigned gen = shmemi_strided_table_gen();
            if (memo.gen == gen && memo.blk == blk && memo.n == n && memo.ds == ds &&
                memo.ss == ss && memo.is_get == is_get) {
                method = memo.method;
                alt = memo.alt;
            } else {
                method = shmemi_strided_choose2(is_get, blk, ds, ss, n, &alt);
                memo.blk = blk, memo.n = n, memo.ds = ds, memo.ss = ss, memo.is_get = is_get;
                memo.method = method, memo.alt = alt, memo.gen = gen;
            }
            if (alt) {
                ade = ad_entry(is_get, blk, ds, ss, n, method, alt);
                k = ad_pick(ade, &sample);
                if (k)
                    method = alt;
                if (sample)
                    t0 = MPI_Wtime();
            }
        }
    }
    switch (method) {
    case SHMEMI_STRIDED_BLOCKS: do_blocks(&x); break;
    case SHMEMI_STRIDED_PACK: do_pack(&x); break;
    case SHMEMI_STRIDED_VECTOR: do_vector(&x); break;
    default: break;
    }
    if (is_get || sample)
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
    else
        SHMEMI_MPI_CHECK(routine, MPI_Win_flush_local(t->rank, t->win));
    if (sample)
        ad_record(ade, k, MPI_Wtime() - t0);
}

