/* sync.c: ordering and completion (fence, quiet) and the global barriers.
 *
 * A quiet first runs the one registered poll if its doorbell rings (shmemi_quiet_poll_set:
 * the comm queues' owner mailboxes), since nothing it then waits in runs progress hooks.
 *
 * quiet completes every transport's operations on the context (shmemi_xp_quiet, xport.h:
 * the node transport's fence, then MPI's nbi atomic requests and window flushes); fence
 * is the same (shmemi_xp_fence).
 * Barriers are shmemi_team_barrier on the world (coll_node.c): the node's shared memory
 * when the job is one node, else MPI_Ibarrier + test, so that a PE inside a barrier keeps
 * applying incoming queue traffic and MPI active messages (see progress.c). After the
 * barrier, MPI_Win_sync makes remote writes visible to this PE's loads. */
#include "shmemi_p2p.h"

static const int64_t *quiet_bell; /* shmemi_quiet_poll_set */
static shmemi_progress_fn quiet_fn;

void shmemi_quiet_poll_set(const int64_t *bell, shmemi_progress_fn fn)
{
    if (bell)
        __atomic_store_n(&quiet_fn, fn, __ATOMIC_RELAXED);
    __atomic_store_n(&quiet_bell, bell, __ATOMIC_RELEASE);
}

void shmemi_ctx_quiet(struct shmemq_ctx *c)
{
    const int64_t *bell = __atomic_load_n(&quiet_bell, __ATOMIC_ACQUIRE);
    if (SHMEMI_UNLIKELY(bell != NULL) && __atomic_load_n(bell, __ATOMIC_RELAXED) > 0)
        __atomic_load_n(&quiet_fn, __ATOMIC_RELAXED)(NULL); /* peers posted work here */
    if (SHMEMI_UNLIKELY(c->batch_ops != NULL)) /* a batch session's queue first */
        c->batch_ops->flush(c);
    shmemi_xp_quiet(c);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (shmemi_check_init("shmem_ctx_quiet"))
        return;
    if (ctx == SHMEM_CTX_INVALID) {
        shmemi_bad_arg("shmem_ctx_quiet", "invalid context");
        return;
    }
    shmemi_ctx_quiet(shmemi_ctx(ctx));
}
SHMEMI_PROFILE(shmem_ctx_quiet)

void shmem_quiet(void)
{
    if (shmemi_check_init("shmem_quiet"))
        return;
    shmemi_ctx_quiet(&shmemi.default_ctx);
}
SHMEMI_PROFILE(shmem_quiet)

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (shmemi_check_init("shmem_ctx_fence"))
        return;
    if (ctx == SHMEM_CTX_INVALID) {
        shmemi_bad_arg("shmem_ctx_fence", "invalid context");
        return;
    }
    shmemi_ctx_quiet(shmemi_ctx(ctx));
}
SHMEMI_PROFILE(shmem_ctx_fence)

void shmem_fence(void)
{
    if (shmemi_check_init("shmem_fence"))
        return;
    shmemi_ctx_quiet(&shmemi.default_ctx);
}
SHMEMI_PROFILE(shmem_fence)

void shmem_barrier_all(void)
{
    if (shmemi_check_init("shmem_barrier_all"))
        return;
    shmemi_ctx_quiet(&shmemi.default_ctx);
    /* through the node's shared memory when the job is one node (coll_node.c) */
    SHMEMI_MPI_CHECK("shmem_barrier_all",
                     shmemi_team_barrier(&shmemi.team_world, "shmem_barrier_all", 0));
}
SHMEMI_PROFILE(shmem_barrier_all)

void shmem_sync_all(void)
{
    if (shmemi_check_init("shmem_sync_all"))
        return;
    SHMEMI_MPI_CHECK("shmem_sync_all",
                     shmemi_team_barrier(&shmemi.team_world, "shmem_sync_all", 0));
}
SHMEMI_PROFILE(shmem_sync_all)
