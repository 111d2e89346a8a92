/* lock.c: shmem_set_lock / shmem_test_lock / shmem_clear_lock as a fair MCS queue lock
 * built from MPI atomics on the one symmetric long the user gives us.
 *
 * The 64-bit lock word (0 = idle everywhere) is used as two 32-bit halves:
 *   TAIL (bytes 0..3)  on PE 0 only: 1 + the PE at the end of the waiting queue, 0 = free
 *   NODE (bytes 4..7)  on every PE: this PE's queue node,
 *                      NEXT (bits 0..30) = 1 + the PE queued right behind it,
 *                      WAIT (bit 31) set while this PE waits for its predecessor
 * acquire: swap own id into PE 0's TAIL (fetching SET). Old TAIL 0: the lock
 *          is ours. Else set own WAIT (OR), add own id into the predecessor's NEXT
 *          (SUM on a field known to be 0), spin until WAIT is cleared.
 * release: quiet (stores of the critical section complete). NEXT empty: compare-and-swap
 *          PE 0's TAIL from own id to 0; that fails only when a successor is enqueuing,
 *          so wait for NEXT. Then clear own NEXT (SUM of its negation) and clear the
 *          successor's WAIT (AND).
 * test_lock: compare-and-swap TAIL from 0 to own id.
 * The successor sets WAIT before it links itself, so the hand-off is never lost. All
 * updates are uint32 atomics of the transport interface (xport.h) on the default context
 * (atomic with each other; 32 bits because Open MPI 4.1's osc/rdma over the vader BTL
 * crashes in 64-bit MPI_Compare_and_swap). Waits poll local atomic loads with
 * MPI_Win_sync and progress, so the hand-off reaches a waiting PE under MPICH's
 * active-message atomics too. FIFO: PEs acquire in the order they swapped the tail.
 *
 * Threads (SHMEM_THREAD_MULTIPLE): the queue above has one node per PE, so two threads of
 * one PE must never be in it at once. Each PE therefore keeps, per lock address, a local
 * ticket lock in front of the distributed one: a thread takes a ticket, waits for its
 * turn (progressing MPI, backing off), and only then enters the MCS queue; clear_lock
 * leaves the queue first and then serves the next ticket. Threads of a PE acquire in
 * ticket order, PEs in tail order. Waits in every loop back off randomly after many
 * fruitless spins (shmemi_backoff), which breaks lockstep between retrying PEs. */
#include "shmemi_p2p.h"
#include <pthread.h>

_Static_assert(sizeof(long) == 2 * sizeof(uint32_t), "the lock word must hold 64 bits");

#define LOCK_NEXT_MASK ((uint32_t)0x7fffffff)
#define LOCK_WAIT ((uint32_t)1 << 31)

static uint32_t fetch_op(const char *routine, const shmemi_target_t *t, uint32_t value,
                         shmemi_xop_t op)
{
    uint32_t old = 0;
    shmemi_xp_fetch_op(routine, t, SHMEMI_XT_uint32, sizeof old, op, &value, &old);
    return old;
}

static uint32_t cas(const char *routine, const shmemi_target_t *t, uint32_t compare, uint32_t value)
{
    uint32_t old = 0;
    shmemi_xp_cas(routine, t, SHMEMI_XT_uint32, sizeof old, &value, &compare, &old, 1);
    return old;
}

static void update(const char *routine, const shmemi_target_t *t, uint32_t value, shmemi_xop_t op)
{
    (void)fetch_op(routine, t, value, op);
}

/* Targets of PE 0's TAIL, of this PE's NODE, and a NODE on another PE. */
static int lock_targets(const char *routine, long *lock, shmemi_target_t *tail,
                        shmemi_target_t *node)
{
    if (shmemi_check_init(routine))
        return -1;
    if (SHMEMI_UNLIKELY(lock == NULL || ((uintptr_t)lock & 7) != 0)) {
        shmemi_bad_arg(routine, "lock %p is NULL or not 8-byte aligned", (void *)lock);
        return -1;
    }
    if (shmemi_target(routine, SHMEM_CTX_DEFAULT, lock, sizeof(long), 0, tail) ||
        shmemi_target(routine, SHMEM_CTX_DEFAULT, (uint32_t *)lock + 1, sizeof(uint32_t),
                      shmemi.my_pe, node))
        return -1;
    return 0;
}

static int node_of(const char *routine, long *lock, uint32_t pe_plus_1, shmemi_target_t *node)
{
    if (shmemi_target(routine, SHMEM_CTX_DEFAULT, (uint32_t *)lock + 1, sizeof(uint32_t),
                      (int)pe_plus_1 - 1, node) == 0)
        return 0;
    shmemi_bad_arg(routine, "corrupt lock word (was it initialised to 0 on every PE?)");
    return -1;
}

static uint32_t load_node(long *lock, MPI_Win win)
{
    MPI_Win_sync(win);
    return __atomic_load_n((uint32_t *)lock + 1, __ATOMIC_ACQUIRE);
}

/* ---- the per-PE ticket lock in front of each lock word (SHMEM_THREAD_MULTIPLE) ---- */
typedef struct local_lock {
    long *addr;
    unsigned long next;    /* next ticket to hand out */
    unsigned long serving; /* ticket whose holder may enter the distributed lock */
    struct local_lock *link;
} local_lock_t;

static local_lock_t *local_locks; /* never shrinks: a lock word may be reused any time */
static pthread_mutex_t local_locks_mutex = PTHREAD_MUTEX_INITIALIZER;

static int threaded(void)
{
    return shmemi.thread_level == SHMEM_THREAD_MULTIPLE;
}

static local_lock_t *local_of(long *lock)
{
    pthread_mutex_lock(&local_locks_mutex);
    local_lock_t *l = local_locks;
    while (l && l->addr != lock)
        l = l->link;
    if (!l) {
        l = calloc(1, sizeof *l);
        if (!l)
            shmemi_fatal("shmem_set_lock", "out of host memory");
        l->addr = lock;
        l->link = local_locks;
        local_locks = l;
    }
    pthread_mutex_unlock(&local_locks_mutex);
    return l;
}

static void local_acquire(local_lock_t *l)
{
    unsigned long t = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    for (unsigned spins = 0; __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != t; spins++) {
        shmemi_progress(); /* the holder may need this PE to enter MPI */
        sched_yield();
        shmemi_backoff(spins);
    }
}

/* 0 when the ticket was free (now held), -1 when another thread holds or waits. */
static int local_try(local_lock_t *l)
{
    unsigned long s = __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);
    unsigned long expect = s;
    return __atomic_compare_exchange_n(&l->next, &expect, s + 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED) ? 0 : -1;
}

static void local_release(local_lock_t *l)
{
    __atomic_fetch_add(&l->serving, 1, __ATOMIC_RELEASE);
}

static int local_held(local_lock_t *l)
{
    return __atomic_load_n(&l->next, __ATOMIC_ACQUIRE) !=
           __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);
}

/* ---- the distributed MCS lock ---- */
static void mcs_acquire(const char *routine, long *lock, shmemi_target_t *tail,
                        shmemi_target_t *self)
{
    shmemi_target_t pred;
    uint32_t me = (uint32_t)shmemi.my_pe + 1;
    uint32_t prev = fetch_op(routine, tail, me, SHMEMI_XOP_SET);
    if (prev != 0) {
        if (node_of(routine, lock, prev, &pred))
            return;
        update(routine, self, LOCK_WAIT, SHMEMI_XOP_OR);
        update(routine, &pred, me, SHMEMI_XOP_SUM);
        for (unsigned spins = 0; load_node(lock, self->win) & LOCK_WAIT;) {
            shmemi_wait_poll(self->win, &spins);
            shmemi_backoff(spins);
        }
    }
    MPI_Win_sync(self->win); /* the critical section sees the previous holder's data */
}

/* 0 when released; -1 when this PE did not hold it (reported). */
static int mcs_release(const char *routine, long *lock, shmemi_target_t *tail,
                       shmemi_target_t *self)
{
    shmemi_target_t succ;
    shmemi_ctx_quiet(&shmemi.default_ctx); /* critical-section stores complete first */
    uint32_t me = (uint32_t)shmemi.my_pe + 1;
    uint32_t next = load_node(lock, self->win) & LOCK_NEXT_MASK;
    if (next == 0) {
        uint32_t old = cas(routine, tail, me, 0);
        if (old == me)
            return 0; /* nobody queued: the lock is free */
        if (old == 0) {
            shmemi_bad_arg(routine, "the lock is not held");
            return -1;
        }
        /* a successor swapped the tail and is about to link itself behind us */
        for (unsigned spins = 0; (next = load_node(lock, self->win) & LOCK_NEXT_MASK) == 0;) {
            shmemi_wait_poll(self->win, &spins);
            shmemi_backoff(spins);
        }
    }
    if (node_of(routine, lock, next, &succ))
        return 0;
    update(routine, self, (uint32_t)0 - next, SHMEMI_XOP_SUM);
    update(routine, &succ, ~LOCK_WAIT, SHMEMI_XOP_AND);
    return 0;
}

void shmem_set_lock(long *lock)
{
    static const char *routine = "shmem_set_lock";
    shmemi_target_t tail, self;
    if (lock_targets(routine, lock, &tail, &self))
        return;
    if (threaded())
        local_acquire(local_of(lock));
    mcs_acquire(routine, lock, &tail, &self);
}
SHMEMI_PROFILE(shmem_set_lock)

int shmem_test_lock(long *lock)
{
    static const char *routine = "shmem_test_lock";
    static _Thread_local unsigned failures; /* callers spin on test_lock: back off */
    shmemi_target_t tail, self;
    if (lock_targets(routine, lock, &tail, &self))
        return 1;
    local_lock_t *l = threaded() ? local_of(lock) : NULL;
    if (l && local_try(l) != 0) {
        shmemi_progress();
        shmemi_backoff(++failures);
        return 1; /* another thread of this PE holds it or waits for it */
    }
    uint32_t me = (uint32_t)shmemi.my_pe + 1;
    if (cas(routine, &tail, 0, me) != 0) {
        if (l)
            local_release(l);
        shmemi_progress();
        shmemi_backoff(++failures);
        return 1;
    }
    failures = 0;
    MPI_Win_sync(self.win);
    return 0;
}
SHMEMI_PROFILE(shmem_test_lock)

void shmem_clear_lock(long *lock)
{
    static const char *routine = "shmem_clear_lock";
    shmemi_target_t tail, self;
    if (lock_targets(routine, lock, &tail, &self))
        return;
    local_lock_t *l = threaded() ? local_of(lock) : NULL;
    if (l && !local_held(l)) {
        shmemi_bad_arg(routine, "the lock is not held");
        return;
    }
    if (mcs_release(routine, lock, &tail, &self) == 0 && l)
        local_release(l);
}
SHMEMI_PROFILE(shmem_clear_lock)
