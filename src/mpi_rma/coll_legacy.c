/* coll_legacy.c: the deprecated active-set collectives (OpenSHMEM 1.4 forms).
 *
 * An active set (PE_start, logPE_stride, PE_size) maps to a communicator, made on first
 * use with MPI_Comm_create_group (collective over the set's members only, as the 1.4
 * routines are) and cached by the triple; the whole world maps to shmemi.comm. The
 * collectives then run on the engines of coll.c (the whole world's as SHMEM_TEAM_WORLD's:
 * node shared memory, or hierarchical across nodes). pSync and pWrk are accepted and not
 * used: MPI collectives need no user scratch space. Cached communicators live until
 * shmem_finalize (a member cannot free one alone without the others agreeing; at
 * finalize every member frees it, in the same creation order). */
#include "coll_impl.h"
#include <limits.h>
#include <pthread.h>

struct aset {
    int start, logstride, size;
    MPI_Comm comm;
    int me;
};

static struct aset *asets;
static int n_asets, cap_asets;
/* Guards the cache only; collectives on one communicator from several threads at
 * once are not allowed by MPI either. */
static pthread_mutex_t aset_lock = PTHREAD_MUTEX_INITIALIZER;

void shmemi_coll_legacy_fini(void)
{
    pthread_mutex_lock(&aset_lock);
    for (int i = 0; i < n_asets; i++)
        MPI_Comm_free(&asets[i].comm);
    free(asets);
    asets = NULL;
    n_asets = cap_asets = 0;
    pthread_mutex_unlock(&aset_lock);
}

/* Fill g for the active set, creating its communicator on first use. Reports bad
 * arguments (loud: these routines return nothing) and returns -1. */
static int active_set(const char *routine, int start, int logstride, int size,
                      shmemi_coll_t *g)
{
    if (shmemi_check_init(routine))
        return -1;
    if (start < 0 || logstride < 0 || logstride > 30 || size < 1 ||
        (long long)start + ((long long)(size - 1) << logstride) >= shmemi.n_pes) {
        shmemi_bad_arg(routine, "invalid active set start %d logstride %d size %d over %d PEs",
                       start, logstride, size, shmemi.n_pes);
        return -1;
    }
    int d = shmemi.my_pe - start;
    if (d < 0 || (d & ((1 << logstride) - 1)) != 0 || (d >> logstride) >= size) {
        shmemi_bad_arg(routine, "PE %d is not in the active set (start %d logstride %d size %d)",
                       shmemi.my_pe, start, logstride, size);
        return -1;
    }
    g->me = d >> logstride;
    g->n = size;
    g->loud = 1;
    g->node = NULL;
    g->hier = NULL; /* other active sets stay flat across nodes */
    if (start == 0 && size == shmemi.n_pes) { /* logstride is then 0, or size 1 */
        g->comm = shmemi.comm;
        /* the world team's collectives: through the node's shared memory when the job is
         * one node (coll_node.c), else hierarchical where that measured faster
         * (coll_hier.c; the choices are the team's, shared with its team routines) */
        g->node = shmemi_cnode_get(&shmemi.team_world, routine, 1);
        g->hier = shmemi.team_world.chier;
        return 0;
    }
    if (size == 1) {
        g->comm = MPI_COMM_SELF;
        return 0;
    }
    pthread_mutex_lock(&aset_lock);
    for (int i = 0; i < n_asets; i++) {
        if (asets[i].start == start && asets[i].logstride == logstride &&
            asets[i].size == size) {
            g->comm = asets[i].comm;
            pthread_mutex_unlock(&aset_lock);
            return 0;
        }
    }
    if (n_asets == cap_asets) {
        int cap = cap_asets ? 2 * cap_asets : 8;
        struct aset *a = realloc(asets, sizeof *a * (size_t)cap);
        if (a == NULL) {
            pthread_mutex_unlock(&aset_lock);
            shmemi_fatal(routine, "out of memory"); /* the other members are waiting */
        }
        asets = a;
        cap_asets = cap;
    }
    int *ranks = malloc(sizeof(int) * (size_t)size);
    if (ranks == NULL) {
        pthread_mutex_unlock(&aset_lock);
        shmemi_fatal(routine, "out of memory");
    }
    for (int i = 0; i < size; i++)
        ranks[i] = start + (i << logstride);
    MPI_Group world, grp;
    MPI_Comm comm;
    MPI_Comm_group(shmemi.comm, &world);
    MPI_Group_incl(world, size, ranks, &grp);
    free(ranks);
    /* The tag only has to match among the set's members, which all pass this triple. */
    int tag = (int)(((unsigned)start * 31u + (unsigned)logstride * 7u + (unsigned)size) % 32000u);
    int rc = MPI_Comm_create_group(shmemi.comm, grp, tag, &comm);
    MPI_Group_free(&grp);
    MPI_Group_free(&world);
    if (rc != MPI_SUCCESS) {
        pthread_mutex_unlock(&aset_lock);
        shmemi_mpi_fail(routine, "MPI_Comm_create_group", rc);
        return -1;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    asets[n_asets++] = (struct aset){start, logstride, size, comm, g->me};
    g->comm = comm;
    pthread_mutex_unlock(&aset_lock);
    return 0;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    shmemi_coll_t g;
    if (active_set("shmem_barrier", PE_start, logPE_stride, PE_size, &g))
        return;
    shmemi_ctx_quiet(&shmemi.default_ctx); /* barrier = quiet + sync */
    if (shmemi_coll_sync("shmem_barrier", &g))
        shmemi_bad_arg("shmem_barrier", "MPI barrier failed");
}
SHMEMI_PROFILE(shmem_barrier)

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    shmemi_coll_t g;
    if (active_set("shmem_sync", PE_start, logPE_stride, PE_size, &g))
        return;
    if (shmemi_coll_sync("shmem_sync", &g))
        shmemi_bad_arg("shmem_sync", "MPI barrier failed");
}
SHMEMI_PROFILE(shmem_sync)

/* nelems of BITS-bit elements in bytes. On overflow a report, and SIZE_MAX, which the
 * engine rejects while still taking part in the agreement the other PEs wait in. */
static size_t legacy_bytes(const char *routine, size_t nelems, size_t esize)
{
    size_t nb;
    if (__builtin_mul_overflow(nelems, esize, &nb)) {
        shmemi_bad_arg(routine, "nelems %zu too large", nelems);
        return SIZE_MAX;
    }
    return nb;
}

#define SHMEMI_DEF_LEGACY_MOVE(BITS)                                                          \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,    \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)      \
    {                                                                                         \
        static const char *routine = "shmem_broadcast" #BITS;                                 \
        shmemi_coll_t g;                                                                      \
        (void)pSync;                                                                          \
        if (active_set(routine, PE_start, logPE_stride, PE_size, &g))                         \
            return;                                                                           \
        size_t nb = legacy_bytes(routine, nelems, BITS / 8);                                  \
        (void)shmemi_coll_bcast(routine, &g, dest, source, nb, PE_root, 0);                   \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_broadcast##BITS)                                                     \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                             int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                         \
        static const char *routine = "shmem_collect" #BITS;                                   \
        shmemi_coll_t g;                                                                      \
        (void)pSync;                                                                          \
        if (active_set(routine, PE_start, logPE_stride, PE_size, &g))                         \
            return;                                                                           \
        size_t nb = legacy_bytes(routine, nelems, BITS / 8);                                  \
        (void)shmemi_coll_collect(routine, &g, dest, source, nb);                             \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_collect##BITS)                                                       \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                              int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                         \
        static const char *routine = "shmem_fcollect" #BITS;                                  \
        shmemi_coll_t g;                                                                      \
        (void)pSync;                                                                          \
        if (active_set(routine, PE_start, logPE_stride, PE_size, &g))                         \
            return;                                                                           \
        size_t nb = legacy_bytes(routine, nelems, BITS / 8);                                  \
        (void)shmemi_coll_fcollect(routine, &g, dest, source, nb);                            \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_fcollect##BITS)                                                      \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                              int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                         \
        static const char *routine = "shmem_alltoall" #BITS;                                  \
        shmemi_coll_t g;                                                                      \
        (void)pSync;                                                                          \
        if (active_set(routine, PE_start, logPE_stride, PE_size, &g))                         \
            return;                                                                           \
        (void)shmemi_coll_alltoalls(routine, &g, dest, source, 1, 1, nelems, BITS / 8);       \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_alltoall##BITS)                                                      \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,  \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                               long *pSync)                                                   \
    {                                                                                         \
        static const char *routine = "shmem_alltoalls" #BITS;                                 \
        shmemi_coll_t g;                                                                      \
        (void)pSync;                                                                          \
        if (active_set(routine, PE_start, logPE_stride, PE_size, &g))                         \
            return;                                                                           \
        (void)shmemi_coll_alltoalls(routine, &g, dest, source, dst, sst, nelems, BITS / 8);   \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_alltoalls##BITS)
SHMEMI_DEF_LEGACY_MOVE(32)
SHMEMI_DEF_LEGACY_MOVE(64)

#define SHMEMI_LEGACY_DT_short MPI_SHORT
#define SHMEMI_LEGACY_DT_int MPI_INT
#define SHMEMI_LEGACY_DT_long MPI_LONG
#define SHMEMI_LEGACY_DT_longlong MPI_LONG_LONG
#define SHMEMI_LEGACY_DT_float MPI_FLOAT
#define SHMEMI_LEGACY_DT_double MPI_DOUBLE
#define SHMEMI_LEGACY_DT_longdouble MPI_LONG_DOUBLE
#define SHMEMI_LEGACY_DT_complexd MPI_C_DOUBLE_COMPLEX
#define SHMEMI_LEGACY_DT_complexf MPI_C_FLOAT_COMPLEX
#define SHMEMI_LEGACY_OP_and MPI_BAND
#define SHMEMI_LEGACY_OP_or MPI_BOR
#define SHMEMI_LEGACY_OP_xor MPI_BXOR
#define SHMEMI_LEGACY_OP_max MPI_MAX
#define SHMEMI_LEGACY_OP_min MPI_MIN
#define SHMEMI_LEGACY_OP_sum MPI_SUM
#define SHMEMI_LEGACY_OP_prod MPI_PROD

#define SHMEMI_DEF_TO_ALL(T, N, OP)                                                           \
    SHMEMI_DEF_ROP(T, N, OP)                                                                  \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,       \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)       \
    {                                                                                         \
        static const char *routine = "shmem_" #N "_" #OP "_to_all";                           \
        shmemi_coll_t g;                                                                      \
        (void)pWrk;                                                                           \
        (void)pSync;                                                                          \
        if (active_set(routine, PE_start, logPE_stride, PE_size, &g))                         \
            return;                                                                           \
        if (nreduce < 0) {                                                                    \
            shmemi_bad_arg(routine, "negative nreduce %d", nreduce);                          \
            (void)shmemi_coll_agree(routine, &g, 1, 0, 0);                                    \
            return;                                                                           \
        }                                                                                     \
        (void)shmemi_coll_reduce(routine, &g, dest, source, (size_t)nreduce, sizeof(T),       \
                                 SHMEMI_LEGACY_DT_##N, SHMEMI_LEGACY_OP_##OP,                 \
                                 rop_##N##_##OP);                                             \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_##OP##_to_all)
#define SHMEMI_DEF_TO_ALL_BIT(T, N) \
    SHMEMI_DEF_TO_ALL(T, N, and) SHMEMI_DEF_TO_ALL(T, N, or) SHMEMI_DEF_TO_ALL(T, N, xor)
#define SHMEMI_DEF_TO_ALL_MINMAX(T, N) SHMEMI_DEF_TO_ALL(T, N, max) SHMEMI_DEF_TO_ALL(T, N, min)
#define SHMEMI_DEF_TO_ALL_ARITH(T, N) SHMEMI_DEF_TO_ALL(T, N, sum) SHMEMI_DEF_TO_ALL(T, N, prod)
SHMEMQ_LEGACY_BITWISE_TYPES(SHMEMI_DEF_TO_ALL_BIT)
SHMEMQ_LEGACY_MINMAX_TYPES(SHMEMI_DEF_TO_ALL_MINMAX)
SHMEMQ_LEGACY_ARITH_TYPES(SHMEMI_DEF_TO_ALL_ARITH)
