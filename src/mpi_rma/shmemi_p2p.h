/*
 * shmemi_p2p.h: internal helpers shared by the point-to-point synchronization,
 * signal, lock, context and shmem_ptr sources (p2p.c, signal.c, lock.c, ctx.c, ptr.c).
 */
#ifndef SHMEMI_P2P_H
#define SHMEMI_P2P_H

#include "shmemi.h"
#include "xport.h"
#include <sched.h>

/* One iteration of a local wait loop. MPI_Win_sync is the memory barrier of MPI's
 * unified model (remote updates become visible to our loads); shmemi_progress() enters
 * MPI, because MPICH ch4:ucx applies remote accumulates (and some puts) only while the
 * target is inside MPI, and runs the queue engines' hooks. With more PEs than cores
 * the PE we wait for needs our core, hence the yield after a few spins. */
static inline void shmemi_wait_poll(MPI_Win win, unsigned *spins)
{
    MPI_Win_sync(win);
    shmemi_progress_waiting();
    if (++*spins > 4)
        sched_yield();
}

/* The window covering a local symmetric range (for MPI_Win_sync), or the heap window
 * when the range is not symmetric. */
static inline MPI_Win shmemi_sync_win(const void *addr, size_t len)
{
    MPI_Win w;
    MPI_Aint d;
    if (shmemi_xlate(&shmemi.default_ctx, addr, len, shmemi.my_pe, &w, &d) == 0)
        return w;
    return shmemi.heap_win;
}


#endif /* SHMEMI_P2P_H */
