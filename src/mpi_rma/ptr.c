/* ptr.c: shmem_ptr and the 1.6 shmem_team_ptr.
 *
 * The calling PE's own symmetric objects, and those of every PE of its node
 * (SHMEM_TEAM_SHARED), are mapped in this process by the node transport (node.c): the
 * heap through MPI shared memory, static and global variables through the data segment
 * moved into shared memory at init. shmem_ptr returns that mapping; NULL for PEs off
 * the node (and for regions that could not be mapped). */
#include "shmemi_p2p.h"

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
    char *base = shmemi_node_region(region, pe);
    return base ? base + off : NULL;
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
