/* progress.c: keeping MPI and the library's own engines moving while a PE waits.
 *
 * MPICH ch4 applies accumulates as active messages at the target, and the queues'
 * batched messages are applied by the target too, so a PE that waits must keep
 * entering MPI and the registered hooks, or a peer that is flushing never finishes.
 * Blocking routines therefore never block inside MPI: they test and progress. */
#include "shmemi.h"
#include <pthread.h>
#include <sched.h>

#define SHMEMI_MAX_HOOKS 256

static struct {
    shmemi_progress_fn fn;
    void *arg;
} hooks[SHMEMI_MAX_HOOKS];
static int n_hooks;
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_progress; /* hooks may call routines that progress */

int shmemi_progress_register(shmemi_progress_fn fn, void *arg)
{
    int rc = -1;
    pthread_mutex_lock(&hooks_lock);
    if (n_hooks < SHMEMI_MAX_HOOKS) {
        hooks[n_hooks].fn = fn;
        hooks[n_hooks].arg = arg;
        __atomic_store_n(&n_hooks, n_hooks + 1, __ATOMIC_RELEASE);
        rc = 0;
    }
    pthread_mutex_unlock(&hooks_lock);
    return rc;
}

void shmemi_progress_unregister(shmemi_progress_fn fn, void *arg)
{
    pthread_mutex_lock(&hooks_lock);
    for (int i = 0; i < n_hooks; i++) {
        if (hooks[i].fn == fn && hooks[i].arg == arg) {
            hooks[i] = hooks[n_hooks - 1];
            __atomic_store_n(&n_hooks, n_hooks - 1, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&hooks_lock);
}

void shmemi_progress(void)
{
    if (in_progress)
        return;
    in_progress = 1;
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shmemi.comm, &flag, MPI_STATUS_IGNORE);
    int n = __atomic_load_n(&n_hooks, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        hooks[i].fn(hooks[i].arg);
    in_progress = 0;
}

int shmemi_wait_request(MPI_Request *req)
{
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        shmemi_progress();
        /* With more PEs than cores the peer we wait for needs our core. */
        if (spins > 64)
            sched_yield();
    }
}

int shmemi_barrier_comm(MPI_Comm comm)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(comm, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return shmemi_wait_request(&req);
}
