/* progress.c: keeping MPI and the library's own engines moving while a PE waits.
 *
 * MPICH ch4 applies accumulates as active messages at the target, and the queues'
 * batched messages are applied by the target too, so a PE that waits must keep
 * entering MPI and the registered hooks, or a peer that is flushing never finishes.
 * Blocking routines therefore never block inside MPI: they test and progress. */
#include "shmemi.h"
#include <pthread.h>
#include <sched.h>
#include <time.h>

#define SHMEMI_MAX_HOOKS 256

static struct {
    shmemi_progress_fn fn;
    void *arg;
    unsigned flags; /* SHMEMI_PROGRESS_* */
} hooks[SHMEMI_MAX_HOOKS];
static int n_hooks;
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_progress; /* hooks may call routines that progress */

int shmemi_progress_register_flags(shmemi_progress_fn fn, void *arg, unsigned flags)
{
    int rc = -1;
    pthread_mutex_lock(&hooks_lock);
    if (n_hooks < SHMEMI_MAX_HOOKS) {
        hooks[n_hooks].fn = fn;
        hooks[n_hooks].arg = arg;
        hooks[n_hooks].flags = flags;
        __atomic_store_n(&n_hooks, n_hooks + 1, __ATOMIC_RELEASE);
        rc = 0;
    }
    pthread_mutex_unlock(&hooks_lock);
    return rc;
}

int shmemi_progress_register(shmemi_progress_fn fn, void *arg)
{
    return shmemi_progress_register_flags(fn, arg, 0);
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

/* Full passes of shmemi_progress by this process's own threads: a node agent that shares
 * a core with PEs leaves the work to them while it moves (agent.c, "Deferral"). Its own
 * line: the agent reads it on every wake-up. */
_Alignas(64) uint64_t shmemi_progress_stamp;

static void progress_pass(int stamp)
{
    if (in_progress)
        return;
    in_progress = 1;
    if (stamp)
        __atomic_fetch_add(&shmemi_progress_stamp, 1, __ATOMIC_RELAXED);
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shmemi.comm, &flag, MPI_STATUS_IGNORE);
    int n = __atomic_load_n(&n_hooks, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        hooks[i].fn(hooks[i].arg);
    in_progress = 0;
}

void shmemi_progress(void)
{
    progress_pass(1);
}

void shmemi_progress_waiting(void)
{
    progress_pass(0);
}

/* The node agent's pass (agent.c): MPI, then the hooks registered as safe there. Under
 * the registry's lock, unlike shmemi_progress: the owner may unregister a hook and free
 * its argument (a stopped session) while the agent runs, and the lock keeps it from
 * calling a hook that is going away. Returns the hooks' work count. */
int shmemi_progress_async(void)
{
    int flag = 0, work = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shmemi.comm, &flag, MPI_STATUS_IGNORE);
    in_progress = 1; /* a hook that progresses does not run the other hooks from here */
    pthread_mutex_lock(&hooks_lock);
    for (int i = 0; i < n_hooks; i++)
        if (hooks[i].flags & SHMEMI_PROGRESS_THREAD_SAFE)
            work += hooks[i].fn(hooks[i].arg);
    pthread_mutex_unlock(&hooks_lock);
    in_progress = 0;
    return work;
}

/* Randomised back-off for retry loops: lock retries and waits for this PE's own atomics,
 * never waits that only other PEs can end (see shmemi_wait_request). PEs that retry the
 * same step against each other (two lock waiters, two PEs swapping a word and waiting on
 * it) can fall into lockstep: each retry meets the other's, forever, most easily when PEs
 * outnumber cores and the scheduler alternates them. After SHMEMI_BACKOFF_AFTER fruitless
 * spins each spin sleeps a random 1..2^k microseconds, k growing with the spins up to
 * SHMEMI_BACKOFF_MAX_LOG2 (at most 128 us): random, so two PEs drift apart; bounded, so a
 * wait that is about to succeed costs little. The generator is per thread (xorshift,
 * seeded by PE, thread and clock): no shared state, no system call but the sleep. */
#define SHMEMI_BACKOFF_AFTER 256u
#define SHMEMI_BACKOFF_MAX_LOG2 7u
static _Thread_local uint64_t backoff_state;

static uint64_t backoff_random(void)
{
    uint64_t x = backoff_state;
    if (x == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = ((uint64_t)shmemi.my_pe << 40) ^ (uint64_t)(uintptr_t)&backoff_state ^
            (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ull;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    backoff_state = x;
    return x;
}

void shmemi_backoff(unsigned spins)
{
    if (spins < SHMEMI_BACKOFF_AFTER)
        return;
    unsigned k = (spins - SHMEMI_BACKOFF_AFTER) / 64 + 1;
    if (k > SHMEMI_BACKOFF_MAX_LOG2)
        k = SHMEMI_BACKOFF_MAX_LOG2;
    uint64_t us = 1 + backoff_random() % ((uint64_t)1 << k);
    struct timespec ts = {0, (long)(us * 1000)};
    nanosleep(&ts, NULL);
}

/* Set between shmemi_wait_nap_begin and _end on this thread (a data-queue flush). */
static _Thread_local int wait_nap;
static _Thread_local double wait_nap_t0; /* when the wait's current long stretch began */
static _Thread_local int wait_nap_fresh = 1; /* a pass since then did work or was early */
uint64_t shmemi_wait_naps;

/* Collective waits yield but never sleep: a PE in a barrier is often the target of its
 * peers' atomics, which MPICH ch4 applies only while it is inside MPI. Each pass runs MPI
 * and every hook, all the node agent would do in this process, so the agent stands down
 * while it runs (agent.c). A sleeping
 * back-off here cut MPICH's off-node blocking AMO rate into a PE waiting in
 * shmem_barrier_all from ~600k/s to ~7k/s (bench/amo_rate, bench/README.md).
 * A data-queue flush is the exception (wait_nap): every PE of its team is in it, and on
 * a machine with several PEs per core a yielding waiter still takes a share of the cores
 * from the PEs that push or route. Once such a wait has lasted 300 us it naps (20 us
 * sleeps): 16 PEs on 2 cores, direct queues' bulk flushes ~15 % faster, routed ones
 * unchanged (bench/README.md; napping from the start was better in bulk, worse for small
 * flushes). Only where napping leaves no PE unserved (shmemi_coll_waits_nap). */
void shmemi_wait_pass(unsigned spins)
{
    shmemi_progress();
    if (spins <= 64) {
        /* callers restart their count after a pass that did work (dq_nbx passes 0):
         * the clock restarts with it, so only an idle stretch of 300 us naps */
        wait_nap_fresh = 1;
        return;
    }
    if (wait_nap) {
        /* only once the wait is long: a short flush's latency stays the yielding one */
        double now = shmemi_wtime();
        if (wait_nap_fresh || now < wait_nap_t0) {
            wait_nap_t0 = now;
            wait_nap_fresh = 0;
        }
        if (now - wait_nap_t0 >= SHMEMI_WAIT_NAP_AFTER_S) {
            struct timespec ts = {0, SHMEMI_WAIT_NAP_NS};
            __atomic_fetch_add(&shmemi_wait_naps, 1, __ATOMIC_RELAXED);
            nanosleep(&ts, NULL);
            return;
        }
    }
    sched_yield();
}

int shmemi_wait_nap_begin(void)
{
    int prev = wait_nap;
    wait_nap = shmemi_coll_waits_nap();
    return prev;
}

void shmemi_wait_nap_end(int prev)
{
    wait_nap = prev;
}

int shmemi_wait_self_begin(void)
{
    return !in_progress && shmemi_agent_self_begin();
}

void shmemi_wait_self_end(int self)
{
    if (self > 0)
        shmemi_agent_self_end();
}

int shmemi_wait_request(MPI_Request *req)
{
    int rc, self = -1; /* counted as progressing the process itself (agent.c); -1: not yet */
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            break;
        /* after the first test (a request done at once costs nothing more); only where
         * shmemi_progress runs the hooks (not inside a hook) does this loop do the agent's
         * work, so only then may the agent stand down */
        if (self < 0)
            self = shmemi_wait_self_begin();
        shmemi_wait_pass(spins);
    }
    shmemi_wait_self_end(self);
    return rc;
}

int shmemi_barrier_comm(MPI_Comm comm)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(comm, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return shmemi_wait_request(&req);
}
