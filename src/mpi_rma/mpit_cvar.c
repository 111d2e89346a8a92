/*
 * mpit_cvar.c: set an integer MPI control variable for the duration of one call, through
 * the standard MPI tool interface (MPI_T), so it works whether or not MPI was
 * initialized by us and leaves the user's own windows and settings alone.
 *
 * Used for MPICH's MPIR_CVAR_SHM_SYMHEAP_RETRY around the symmetric-heap MPI_Win_allocate:
 * for a page-aligned window MPICH first looks for one virtual address range free in every
 * process (so that all bases are equal), probing random ranges with one msync per page.
 * For a 256 MiB heap that is 65536 system calls per try; shmem_init took 0.32 s at 2 PEs
 * and 1.6 s at 4 (oversubscribed) on Debian's MPICH 4.0.2, 0.09 s and 0.7 s without it.
 * shmemq never relies on equal bases (offsets are exchanged; docs/design.md), so the
 * search buys nothing here. An MPI without the variable is left untouched.
 *
 * MPI_T stays initialized until shmem_finalize finalizes MPI: Debian's MPICH 4.0.2
 * forgets every control-variable name once MPI_T's init count drops to zero (a later
 * MPI_T_cvar_get_index says MPI_T_ERR_INVALID_NAME), which would break the user's own
 * MPI_T use (test Setup.MpiControlVariableRestoredAfterInit).
 */
#include "shmemi.h"

#include <stdlib.h>

static int mpit_open; /* our one MPI_T_init_thread, undone by shmemi_mpit_fini */

int shmemi_cvar_push_int(const char *name, int value, shmemi_cvar_saved_t *saved)
{
    saved->active = 0;
    int provided, idx, count;
    if (!mpit_open) {
        /* Ask for the level MPI already gives: Open MPI 4.1 makes MPI_T's level the whole
         * library's, so MPI_THREAD_SINGLE here turned a THREAD_MULTIPLE job into a
         * THREAD_SINGLE one (MPI_Query_thread said 0; test Setup.ThreadLevelKept). */
        int level = MPI_THREAD_SINGLE;
        MPI_Query_thread(&level);
        if (MPI_T_init_thread(level, &provided) != MPI_SUCCESS)
            return -1;
        mpit_open = 1;
    }
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS)
        return -1;
    if (count != 1 || MPI_T_cvar_read(h, &saved->old) != MPI_SUCCESS ||
        MPI_T_cvar_write(h, &value) != MPI_SUCCESS) {
        MPI_T_cvar_handle_free(&h);
        return -1;
    }
    saved->handle = h;
    saved->active = 1;
    return 0;
}

void shmemi_cvar_pop(shmemi_cvar_saved_t *saved)
{
    if (!saved->active)
        return;
    MPI_T_cvar_handle h = saved->handle;
    (void)MPI_T_cvar_write(h, &saved->old);
    MPI_T_cvar_handle_free(&h);
    saved->active = 0;
}

void shmemi_mpit_fini(void)
{
    if (mpit_open)
        MPI_T_finalize();
    mpit_open = 0;
}
