/* lock.c: shmem_set_lock / shmem_test_lock / shmem_clear_lock as a fair MCS queue lock
 * built from MPI atomics on the one symmetric long the user gives us.
 *
 * Each PE's copy of the lock word (64 bits, 0 = idle everywhere) holds:
 *   TAIL (bits 0..30)  on PE 0 only: 1 + the PE at the end of the waiting queue, 0 = free
 *   NEXT (bits 31..61) on every PE: 1 + the PE queued right behind this one
 *   WAIT (bit 62)      on every PE: set while this PE waits for its predecessor
 * acquire: swap own id into PE 0's TAIL (fetch + compare-and-swap loop, other fields
 *          preserved). Old TAIL 0: the lock is ours. Else set own WAIT, add own id into
 *          the predecessor's NEXT (MPI_SUM on a field known to be 0), spin until WAIT
 *          is cleared.
 * release: quiet (stores of the critical section complete). NEXT empty: CAS PE 0's
 *          TAIL from own id to 0; that fails only when a successor is enqueuing, so
 *          wait for NEXT. Then clear own NEXT (MPI_SUM of its negation) and clear the
 *          successor's WAIT (MPI_BAND).
 * The successor sets WAIT before it links itself, so the hand-off is never lost. All
 * updates are MPI_UINT64_T accumulate-class operations on the default context's
 * window (atomic with each other); waits poll local atomic loads with MPI_Win_sync and
 * progress, so the hand-off reaches a waiting PE under MPICH's active-message
 * atomics too. FIFO order: PEs acquire in the order they swapped the tail. */
#include "shmemi_p2p.h"

_Static_assert(sizeof(long) == sizeof(uint64_t), "the lock word must hold 64 bits");

#define LOCK_TAIL_MASK ((uint64_t)0x7fffffff)
#define LOCK_NEXT_SHIFT 31
#define LOCK_WAIT ((uint64_t)1 << 62)

/* Fetching atomic, waited for with a request: the result's arrival means the update was
 * applied at the target, and the wait yields instead of spinning inside MPI_Win_flush. */
static uint64_t fetch_op(const char *routine, const shmemi_target_t *t, uint64_t value, MPI_Op op)
{
    uint64_t old = 0;
    MPI_Request req;
    SHMEMI_MPI_CHECK(routine, MPI_Rget_accumulate(&value, 1, MPI_UINT64_T, &old, 1, MPI_UINT64_T,
                                                  t->rank, t->disp, 1, MPI_UINT64_T, op, t->win,
                                                  &req));
    SHMEMI_MPI_CHECK(routine, shmemi_p2p_wait_req(&req));
    return old;
}

static uint64_t cas(const char *routine, const shmemi_target_t *t, uint64_t compare, uint64_t value)
{
    uint64_t old = 0, after = 0;
    MPI_Request req;
    SHMEMI_MPI_CHECK(routine, MPI_Compare_and_swap(&value, &compare, &old, MPI_UINT64_T, t->rank,
                                                   t->disp, t->win));
    /* MPI has no request-based CAS. A fetching no-op on the same location is ordered
     * after it (default accumulate_ordering); waiting for that one with yields keeps the
     * final blocking flush short when PEs outnumber cores. */
    SHMEMI_MPI_CHECK(routine, MPI_Rget_accumulate(NULL, 0, MPI_UINT64_T, &after, 1, MPI_UINT64_T,
                                                  t->rank, t->disp, 1, MPI_UINT64_T, MPI_NO_OP,
                                                  t->win, &req));
    SHMEMI_MPI_CHECK(routine, shmemi_p2p_wait_req(&req));
    SHMEMI_MPI_CHECK(routine, MPI_Win_flush(t->rank, t->win));
    return old;
}

static void update(const char *routine, const shmemi_target_t *t, uint64_t value, MPI_Op op)
{
    (void)fetch_op(routine, t, value, op);
}

/* Targets of the lock word on PE 0 (home of TAIL) and on the calling PE. */
static int lock_targets(const char *routine, long *lock, shmemi_target_t *home,
                        shmemi_target_t *self)
{
    if (shmemi_check_init(routine))
        return -1;
    if (SHMEMI_UNLIKELY(lock == NULL || ((uintptr_t)lock & 7) != 0)) {
        shmemi_bad_arg(routine, "lock %p is NULL or not 8-byte aligned", (void *)lock);
        return -1;
    }
    if (shmemi_target(routine, SHMEM_CTX_DEFAULT, lock, sizeof(long), 0, home) ||
        shmemi_target(routine, SHMEM_CTX_DEFAULT, lock, sizeof(long), shmemi.my_pe, self))
        return -1;
    return 0;
}

static uint64_t load_own(long *lock, MPI_Win win)
{
    MPI_Win_sync(win);
    return (uint64_t)__atomic_load_n(lock, __ATOMIC_ACQUIRE);
}

void shmem_set_lock(long *lock)
{
    static const char *routine = "shmem_set_lock";
    shmemi_target_t home, self;
    if (lock_targets(routine, lock, &home, &self))
        return;
    uint64_t me = (uint64_t)shmemi.my_pe + 1;
    uint64_t old = fetch_op(routine, &home, 0, MPI_NO_OP);
    for (;;) {
        uint64_t got = cas(routine, &home, old, (old & ~LOCK_TAIL_MASK) | me);
        if (got == old)
            break;
        old = got;
    }
    uint64_t prev = old & LOCK_TAIL_MASK;
    if (prev != 0) {
        shmemi_target_t pred;
        if (shmemi_target(routine, SHMEM_CTX_DEFAULT, lock, sizeof(long), (int)(prev - 1), &pred))
            shmemi_fatal(routine, "corrupt lock word (was it initialised to 0?)");
        update(routine, &self, LOCK_WAIT, MPI_BOR);
        update(routine, &pred, me << LOCK_NEXT_SHIFT, MPI_SUM);
        for (unsigned spins = 0; load_own(lock, self.win) & LOCK_WAIT;)
            shmemi_wait_poll(self.win, &spins);
    }
    MPI_Win_sync(self.win); /* the critical section sees the previous holder's data */
}
SHMEMI_PROFILE(shmem_set_lock)

int shmem_test_lock(long *lock)
{
    static const char *routine = "shmem_test_lock";
    shmemi_target_t home, self;
    if (lock_targets(routine, lock, &home, &self))
        return 1;
    uint64_t me = (uint64_t)shmemi.my_pe + 1;
    uint64_t old = fetch_op(routine, &home, 0, MPI_NO_OP);
    for (;;) {
        if (old & LOCK_TAIL_MASK) {
            shmemi_progress(); /* callers spin on test_lock */
            return 1;
        }
        uint64_t got = cas(routine, &home, old, old | me);
        if (got == old)
            break;
        old = got;
    }
    MPI_Win_sync(self.win);
    return 0;
}
SHMEMI_PROFILE(shmem_test_lock)

void shmem_clear_lock(long *lock)
{
    static const char *routine = "shmem_clear_lock";
    shmemi_target_t home, self;
    if (lock_targets(routine, lock, &home, &self))
        return;
    shmemi_ctx_quiet(&shmemi.default_ctx); /* critical-section stores complete first */
    uint64_t me = (uint64_t)shmemi.my_pe + 1;
    uint64_t next = (load_own(lock, self.win) >> LOCK_NEXT_SHIFT) & LOCK_TAIL_MASK;
    if (next == 0) {
        uint64_t old = fetch_op(routine, &home, 0, MPI_NO_OP);
        while ((old & LOCK_TAIL_MASK) == me) {
            uint64_t got = cas(routine, &home, old, old & ~LOCK_TAIL_MASK);
            if (got == old)
                return; /* nobody queued: the lock is free */
            old = got;
        }
        if ((old & LOCK_TAIL_MASK) == 0) {
            shmemi_bad_arg(routine, "the lock is not held");
            return;
        }
        /* a successor swapped the tail and is about to link itself behind us */
        for (unsigned spins = 0;;) {
            next = (load_own(lock, self.win) >> LOCK_NEXT_SHIFT) & LOCK_TAIL_MASK;
            if (next)
                break;
            shmemi_wait_poll(self.win, &spins);
        }
    }
    shmemi_target_t succ;
    if (shmemi_target(routine, SHMEM_CTX_DEFAULT, lock, sizeof(long), (int)(next - 1), &succ))
        shmemi_fatal(routine, "corrupt lock word (was it initialised to 0?)");
    update(routine, &self, (uint64_t)0 - (next << LOCK_NEXT_SHIFT), MPI_SUM);
    update(routine, &succ, ~LOCK_WAIT, MPI_BAND);
}
SHMEMI_PROFILE(shmem_clear_lock)
