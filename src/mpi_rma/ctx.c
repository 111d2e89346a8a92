/* ctx.c: communication contexts (OpenSHMEM 1.5 section 9.4).
 *
 * A context is a pair of windows over the symmetric heap and the data segment, so that
 * shmem_ctx_quiet (MPI_Win_flush_all on the pair) completes only that context's
 * operations. Windows are collective to create but shmem_ctx_create is local, so a
 * pool of SHMEMQ_CTX_WINDOWS (default 4) window pairs is made at shmem_init:
 * MPI_Win_create over the whole memory of the default heap window (same base, so
 * displacements use the same heap_adj table; Debian's MPICH 4.0.2 loses puts through an
 * MPI_Win_create window whose base lies inside MPI_Win_allocate memory at an offset) and
 * over the data segment, each lock_all'ed once. A context takes a free pair; when the pool is exhausted it shares
 * the default context's windows, and its quiet then also completes the default
 * context's operations (allowed: quiet may complete more than it must).
 * shmem_team_create_ctx records the team; shmemi_target() makes the PE numbers of the
 * context's RMA/AMO calls team-relative. Options PRIVATE, SERIALIZED and NOSTORE are
 * accepted (hints; the windows are the same). SHMEM_DEBUG prints the pool's creation
 * time; bench/ctx_init.c measures it (docs/p2p.md). */
#include "shmemi_p2p.h"
#include <pthread.h>

#define CTX_POOL_DEFAULT 4
#define CTX_POOL_MAX 64
#define CTX_VALID_OPTIONS (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE)

typedef struct {
    MPI_Win heap_win;
    MPI_Win data_win;
    int in_use;
} ctx_slot_t;

/* A user context: the public part first, so the handle casts both ways. */
typedef struct ctx_impl {
    struct shmemq_ctx pub;
    int slot; /* index into pool, or -1 when sharing the default windows */
    struct ctx_impl *prev, *next; /* live contexts (pool_lock): freed at finalize */
} ctx_impl_t;

static ctx_slot_t *pool;
static int pool_n;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static ctx_impl_t *live_ctx;
static double pool_ms; /* wall time of creating the pool at init (SHMEM_DEBUG prints it) */

static int pool_size_from_env(void)
{
    const char *s = getenv("SHMEMQ_CTX_WINDOWS");
    if (s == NULL || *s == '\0')
        return CTX_POOL_DEFAULT;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 0 || v > (1 << 20))
        return CTX_POOL_DEFAULT; /* shmem_init said so (settings.c) */
    return v > CTX_POOL_MAX ? CTX_POOL_MAX : (int)v;
}

int shmemi_ctx_init(void)
{
    double t0 = shmemi_wtime();
    int n = pool_size_from_env(); /* same environment on every PE: the loop is collective */
    /* A single PE has nothing to complete selectively; and Debian's MPICH 4.0.2 loses
     * accumulates to self through an MPI_Win_create window over MPI_Win_allocate
     * memory when the communicator has one process. */
    if (shmemi.n_pes == 1)
        n = 0;
    pool = calloc((size_t)(n ? n : 1), sizeof *pool);
    if (!pool)
        return -1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_disp_unit", "true");
    void *heap_mem = NULL;
    MPI_Aint *heap_mem_size = NULL;
    int flag = 0;
    MPI_Win_get_attr(shmemi.heap_win, MPI_WIN_BASE, &heap_mem, &flag);
    if (flag)
        MPI_Win_get_attr(shmemi.heap_win, MPI_WIN_SIZE, &heap_mem_size, &flag);
    if (!flag)
        n = 0;
    for (pool_n = 0; pool_n < n; pool_n++) {
        ctx_slot_t *s = &pool[pool_n];
        if (MPI_Win_create(heap_mem, *heap_mem_size, 1, info, shmemi.comm, &s->heap_win) !=
            MPI_SUCCESS)
            break;
        if (MPI_Win_create(shmemi.data_size ? shmemi.data_base : NULL,
                           (MPI_Aint)shmemi.data_size, 1, info, shmemi.comm,
                           &s->data_win) != MPI_SUCCESS) {
            MPI_Win_free(&s->heap_win);
            break;
        }
        MPI_Win_set_errhandler(s->heap_win, MPI_ERRORS_RETURN);
        MPI_Win_set_errhandler(s->data_win, MPI_ERRORS_RETURN);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, s->heap_win);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, s->data_win);
    }
    MPI_Info_free(&info);
    pool_ms = (shmemi_wtime() - t0) * 1e3;
    shmemi_debug("shmem_init", "%d context window pairs in %.2f ms", pool_n, pool_ms);
    return pool_n == n ? 0 : -1;
}

void shmemi_ctx_fini(void)
{
    /* contexts the program did not destroy: their windows are freed below */
    while (live_ctx) {
        ctx_impl_t *c = live_ctx;
        live_ctx = c->next;
        free(c);
    }
    for (int i = 0; i < pool_n; i++) {
        MPI_Win_unlock_all(pool[i].heap_win);
        MPI_Win_unlock_all(pool[i].data_win);
        MPI_Win_free(&pool[i].heap_win);
        MPI_Win_free(&pool[i].data_win);
    }
    free(pool);
    pool = NULL;
    pool_n = 0;
}

static int ctx_create(const char *routine, struct shmemq_team *team, long options,
                      shmem_ctx_t *ctx)
{
    if (ctx == NULL) {
        shmemi_debug(routine, "NULL ctx argument");
        return -1;
    }
    *ctx = SHMEM_CTX_INVALID;
    if (!shmemi.initialized) {
        shmemi_debug(routine, "OpenSHMEM is not initialized");
        return -1;
    }
    if (options & ~CTX_VALID_OPTIONS) {
        shmemi_debug(routine, "invalid options 0x%lx", options);
        return -1;
    }
    if (team == SHMEM_TEAM_INVALID || team->my_pe < 0) {
        shmemi_debug(routine, "invalid team, or this PE is not a member");
        return -1;
    }
    ctx_impl_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return -1;
    c->slot = -1;
    pthread_mutex_lock(&pool_lock);
    for (int i = 0; i < pool_n; i++) {
        if (!pool[i].in_use) {
            pool[i].in_use = 1;
            c->slot = i;
            break;
        }
    }
    team->n_ctx++;
    c->next = live_ctx;
    if (live_ctx)
        live_ctx->prev = c;
    live_ctx = c;
    pthread_mutex_unlock(&pool_lock);
    if (c->slot >= 0) {
        c->pub.heap_win = pool[c->slot].heap_win;
        c->pub.data_win = pool[c->slot].data_win;
        c->pub.heap_adj = shmemi.heap_adj;
    } else { /* pool exhausted: share the default windows */
        c->pub.heap_win = shmemi.heap_win;
        c->pub.data_win = shmemi.data_win;
        c->pub.heap_adj = shmemi.heap_adj;
    }
    c->pub.team = team;
    c->pub.options = options;
    c->pub.is_default = 0;
    c->pub.batch_ops = NULL;
    c->pub.batch = NULL;
    *ctx = &c->pub;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return ctx_create("shmem_ctx_create", &shmemi.team_world, options, ctx);
}
SHMEMI_PROFILE(shmem_ctx_create)

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return ctx_create("shmem_team_create_ctx", team, options, ctx);
}
SHMEMI_PROFILE(shmem_team_create_ctx)

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    static const char *routine = "shmem_ctx_destroy";
    if (ctx == SHMEM_CTX_INVALID)
        return; /* 1.5: no operation */
    if (shmemi_check_init(routine))
        return;
    if (ctx == SHMEM_CTX_DEFAULT || ctx->is_default) {
        shmemi_bad_arg(routine, "the default context cannot be destroyed");
        return;
    }
    ctx_impl_t *c = (ctx_impl_t *)ctx;
    if (c->pub.batch_ops != NULL) /* a batch session ends: its queue completes */
        c->pub.batch_ops->stop(&c->pub);
    shmemi_ctx_quiet(&c->pub); /* destroying a context completes its operations */
    pthread_mutex_lock(&pool_lock);
    if (c->slot >= 0 && c->slot < pool_n)
        pool[c->slot].in_use = 0;
    if (c->pub.team)
        c->pub.team->n_ctx--;
    if (c->prev)
        c->prev->next = c->next;
    else
        live_ctx = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&pool_lock);
    free(c);
}
SHMEMI_PROFILE(shmem_ctx_destroy)

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (team == NULL) {
        shmemi_debug("shmem_ctx_get_team", "NULL team argument");
        return -1;
    }
    if (ctx == SHMEM_CTX_INVALID || !shmemi.initialized) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}
SHMEMI_PROFILE(shmem_ctx_get_team)

/* ---- 1.6 shmem_pe_quiet: flush only the listed PEs (team-relative to the context) ---- */
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    static const char *routine = "shmem_ctx_pe_quiet";
    if (shmemi_check_init(routine))
        return;
    if (ctx == SHMEM_CTX_INVALID) {
        shmemi_bad_arg(routine, "invalid context");
        return;
    }
    if (npes > 0 && target_pes == NULL) {
        shmemi_bad_arg(routine, "NULL target_pes with %zu PEs", npes);
        return;
    }
    if (ctx->batch_ops != NULL && npes > 0) /* the queue has only a full flush */
        ctx->batch_ops->flush(ctx);
    if (npes > 0)
        shmemi_amo_quiet(ctx); /* all PEs' fetching nbi atomics: more than asked, allowed */
    for (size_t i = 0; i < npes; i++) {
        int rank = shmemi_team_world_pe(ctx->team, target_pes[i]);
        if (rank < 0) {
            shmemi_bad_arg(routine, "PE %d is not in the context's team", target_pes[i]);
            continue;
        }
        shmemi_xp_quiet_rank(routine, ctx, rank);
    }
}
SHMEMI_PROFILE(shmem_ctx_pe_quiet)

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes);
}
SHMEMI_PROFILE(shmem_pe_quiet)
