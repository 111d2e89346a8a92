/* ptr.c: shmem_ptr and the 1.6 shmem_team_ptr.
 *
 * The calling PE's own symmetric objects are reachable by loads and stores, so their
 * address is returned. For other PEs we ask MPI whether their heap is mapped here:
 * MPI_Win_shared_query on the heap window (MPI_ERRORS_RETURN is set on it). MPICH
 * 4.0.2 refuses it for MPI_Win_allocate windows; Open MPI may answer. A mapping is
 * used only when the query succeeds with a non-NULL base covering the whole heap and
 * the PE is in SHMEM_TEAM_SHARED. The data-segment window is MPI_Win_create memory,
 * never shared: NULL. The per-PE bases are learned once at init (the query is local). */
#include "shmemi_p2p.h"

static char **peer_heap; /* per world PE: its heap_base as mapped here, or NULL */

void shmemi_ptr_init(void)
{
    peer_heap = calloc((size_t)shmemi.n_pes, sizeof *peer_heap);
    if (peer_heap == NULL)
        return;
    peer_heap[shmemi.my_pe] = shmemi.heap_base;
    const struct shmemq_team *shared = &shmemi.team_shared;
    for (int i = 0; i < shared->n_pes; i++) {
        int pe = shmemi_team_world_pe(shared, i);
        if (pe < 0 || pe == shmemi.my_pe)
            continue;
        MPI_Aint size = 0;
        int disp_unit = 0;
        char *base = NULL;
        if (MPI_Win_shared_query(shmemi.heap_win, pe, &size, &disp_unit, &base) != MPI_SUCCESS)
            continue;
        if (base != NULL && size >= shmemi.heap_adj[pe] + (MPI_Aint)shmemi.heap_size)
            peer_heap[pe] = base + shmemi.heap_adj[pe];
    }
}

void shmemi_ptr_fini(void)
{
    free(peer_heap);
    peer_heap = NULL;
}

void *shmem_ptr(const void *dest, int pe)
{
    if (!shmemi.initialized || dest == NULL || pe < 0 || pe >= shmemi.n_pes)
        return NULL;
    uintptr_t off;
    int region = shmemi_region(dest, 1, &off);
    if (region < 0)
        return NULL;
    if (pe == shmemi.my_pe)
        return (void *)dest;
    if (region == 0 && peer_heap != NULL && peer_heap[pe] != NULL)
        return peer_heap[pe] + off;
    return NULL;
}
SHMEMI_PROFILE(shmem_ptr)

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (team == SHMEM_TEAM_INVALID || !shmemi.initialized)
        return NULL;
    int world = shmemi_team_world_pe(team, pe);
    return world < 0 ? NULL : shmem_ptr(dest, world);
}
SHMEMI_PROFILE(shmem_team_ptr)
