/* coll_impl.h: the collective engines shared by the team collectives (coll.c) and the
 * deprecated active-set collectives (coll_legacy.c). Each engine checks its arguments,
 * reports through shmemi_debug (quiet, for routines that return an error) or
 * shmemi_bad_arg (loud, for void routines), then takes part in the agreement
 * (shmemi_coll_agree) whatever its verdict, and returns 0, or -1 on every PE with
 * nothing written. */
#ifndef SHMEMI_COLL_IMPL_H
#define SHMEMI_COLL_IMPL_H

#include "shmemi.h"

/* The PEs a collective runs over: a team's communicator or an active set's. */
typedef struct {
    MPI_Comm comm;
    int me;
    int n;
    int loud; /* report bad arguments with shmemi_bad_arg instead of shmemi_debug */
} shmemi_coll_t;

/* Copy nbytes from source on PE root to dest on every PE (on root too when
 * write_root; the 1.4 active-set form leaves the root's dest alone). */
int shmemi_coll_bcast(const char *routine, const shmemi_coll_t *g, void *dest,
                      const void *source, size_t nbytes, int root, int write_root);
/* Concatenate every PE's nbytes (which may differ per PE) into dest in PE order. */
int shmemi_coll_collect(const char *routine, const shmemi_coll_t *g, void *dest,
                        const void *source, size_t nbytes);
/* Same with nbytes equal on every PE. */
int shmemi_coll_fcollect(const char *routine, const shmemi_coll_t *g, void *dest,
                         const void *source, size_t nbytes);
/* Block j of source (nelems elements of esize bytes, consecutive elements sst elements
 * apart, block j starting at element j*nelems*sst) goes to block me of dest on PE j
 * (same layout with dst). dst = sst = 1 is the contiguous alltoall. */
int shmemi_coll_alltoalls(const char *routine, const shmemi_coll_t *g, void *dest,
                          const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                          size_t esize);
/* Element-wise reduction of count elements with (dt, op); dest == source is in place. */
int shmemi_coll_reduce(const char *routine, const shmemi_coll_t *g, void *dest,
                       const void *source, size_t count, size_t esize, MPI_Datatype dt,
                       MPI_Op op);
/* Barrier over the group that keeps progressing, then make peers' stores visible. */
int shmemi_coll_sync(const char *routine, const shmemi_coll_t *g);
/* The agreement every engine runs before moving data (agree.c): bad is this PE's
 * verdict on its arguments; the routine, size and root must be equal on every PE.
 * 0 when all is well, else -1 on every PE. Callers that reject arguments before
 * calling an engine call it with bad = 1 so that the other PEs return too. */
int shmemi_coll_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                      uint64_t root);

#endif /* SHMEMI_COLL_IMPL_H */
