/* xport_mpi.c: the MPI transport's byte movers (xport.h): MPI_Put/MPI_Get on the target's
 * window, split at SHMEMI_MAX_MPI_COUNT (MPI counts are int). Completion is the caller's:
 * a flush, or quiet. */
#include "shmemi.h"
#include "xport.h"

void shmemi_mpi_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t k = n - done < SHMEMI_MAX_MPI_COUNT ? n - done : SHMEMI_MAX_MPI_COUNT;
        SHMEMI_MPI_CHECK(routine, MPI_Put((const char *)src + done, (int)k, MPI_BYTE, t->rank,
                                          t->disp + (MPI_Aint)done, (int)k, MPI_BYTE, t->win));
        done += k;
    }
}

void shmemi_mpi_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t k = n - done < SHMEMI_MAX_MPI_COUNT ? n - done : SHMEMI_MAX_MPI_COUNT;
        SHMEMI_MPI_CHECK(routine, MPI_Get((char *)dest + done, (int)k, MPI_BYTE, t->rank,
                                          t->disp + (MPI_Aint)done, (int)k, MPI_BYTE, t->win));
        done += k;
    }
}
