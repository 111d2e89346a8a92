/* agree.h: collective agreement on bad input, and the SHMEM_DEBUG watchdog (agree.c).
 *
 * A PE that rejects the arguments of a collective but still knows the communicator
 * takes part in one small MPI_Iallreduce (the agreement) instead of returning alone,
 * so every PE fails together and nobody waits forever in the data collective. Where a
 * PE cannot know the communicator (NULL queue handle, invalid team) it cannot take
 * part: the others' waits run the watchdog under SHMEM_DEBUG. docs/teams.md has which
 * case gets which. */
#ifndef SHMEMI_AGREE_H
#define SHMEMI_AGREE_H

#include "shmemi.h"

/* Most values one agreement checks for equality across the PEs. */
#define SHMEMI_AGREE_MAXV 3

/* One agreement over comm (me of n): bad is this PE's verdict on its own arguments;
 * vals[0..nvals) must be equal on every PE (routine kind, sizes, root). Returns 0 when
 * every PE accepted and agreed, -1 otherwise (also on an MPI failure), the same on every
 * PE. The PEs that did not reject anything report why (loud: always, with
 * shmemi_bad_arg; else team PE 0 says once per routine (shmemi_refused) when the PEs
 * disagree, and the others only under SHMEM_DEBUG, since a PE that rejected its own
 * arguments said why itself). Waits with shmemi_agree_wait. */
int shmemi_agree(const char *routine, MPI_Comm comm, int me, int n, int loud, int bad,
                 const uint64_t *vals, int nvals);

/* The same, with nextra more words reduced with MAX in the same call (written to
 * extra_out only on success): a small broadcast rides on the agreement (the root
 * contributes its data, the others zeros). Keep extra words below 2^63: MPICH 4.0
 * compared MPI_UINT64_T as signed in MPI_MAX (the v/~v pairs work either way). */
#define SHMEMI_AGREE_MAX_EXTRA 32
int shmemi_agree_extra(const char *routine, MPI_Comm comm, int me, int n, int loud, int bad,
                       const uint64_t *vals, int nvals, const uint64_t *extra_in,
                       uint64_t *extra_out, int nextra);

/* The two halves of an agreement, for the hierarchical collectives
 * (coll_hier_engines.c), whose node leaders agree for their node's PEs. The exchange:
 * first_bad is the lowest PE (of n, in the comm's collective's numbering) that rejected
 * its arguments, or -1; each value i must be equal everywhere, and this caller has seen
 * it range over [vmin[i], vmax[i]]. Returns 0 with the verdict filled in (the extra words
 * copied out only when it is clean), -1 on an MPI failure. The report: what the PE me
 * says when the verdict is not clean (nothing when bad: it said why itself), as
 * shmemi_agree does. */
typedef struct {
    int first_bad; /* lowest PE that rejected its arguments, or -1 */
    int differs;   /* first value that was not equal everywhere, or -1 */
} shmemi_agree_verdict_t;
int shmemi_agree_exchange(const char *routine, MPI_Comm comm, int n, int first_bad,
                          const uint64_t *vmax, const uint64_t *vmin, int nvals,
                          const uint64_t *extra_in, uint64_t *extra_out, int nextra,
                          shmemi_agree_verdict_t *verdict);
void shmemi_agree_report(const char *routine, int me, int loud, int bad,
                         const shmemi_agree_verdict_t *v);

/* A stable number for a routine name (the "kind" value of an agreement). */
uint64_t shmemi_agree_kind(const char *routine);

/* Complete req, a collective step over comm that completes only when every member has
 * arrived, while progressing everything else. Under SHMEM_DEBUG the watchdog runs:
 * after SHMEMQ_WATCHDOG_SECONDS (default 10) it prints the routine, the team and the
 * members that have not arrived, and ends the job with shmem_global_exit(1). */
int shmemi_agree_wait(MPI_Request *req, MPI_Comm comm, const char *routine);

/* Barrier over comm with shmemi_agree_wait. */
int shmemi_agree_barrier(MPI_Comm comm, const char *routine);

/* This PE cannot tell which collective its peers are in (NULL or dead handle of a
 * collective routine): always print PE, routine and why, since the peers will wait
 * for it; under SHMEM_DEBUG also answer their watchdogs. */
void shmemi_agree_orphan(const char *routine, const char *why);

#endif /* SHMEMI_AGREE_H */
