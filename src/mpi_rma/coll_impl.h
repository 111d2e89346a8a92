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
    struct shmemi_cnode *node; /* the group lives on one node: coll_node.c moves the data */
    struct shmemi_chier *hier; /* a team across nodes: coll_hier*.c may, by size (or NULL) */
} shmemi_coll_t;

/* inout[i] = in[i] OP inout[i] for count elements of one type: every reduction routine
 * passes its own (SHMEMI_DEF_ROP below), which the node paths fold with. */
typedef void (*shmemi_rop_fn)(void *inout, const void *in, size_t count);

/* The element-wise kernels: coll.c (team routines) and coll_legacy.c (1.4 *_to_all)
 * define one static shmemi_rop_fn per (type, op) they offer: inout = in OP inout. */
#define SHMEMI_C_OP_and(a, b) ((a) & (b))
#define SHMEMI_C_OP_or(a, b) ((a) | (b))
#define SHMEMI_C_OP_xor(a, b) ((a) ^ (b))
#define SHMEMI_C_OP_max(a, b) ((a) > (b) ? (a) : (b))
#define SHMEMI_C_OP_min(a, b) ((a) < (b) ? (a) : (b))
#define SHMEMI_C_OP_sum(a, b) ((a) + (b))
#define SHMEMI_C_OP_prod(a, b) ((a) * (b))
#define SHMEMI_DEF_ROP(T, N, OP)                                                             \
    static void rop_##N##_##OP(void *inout, const void *in, size_t count)                    \
    {                                                                                        \
        T *a = (T *)inout;                                                                   \
        const T *b = (const T *)in;                                                          \
        for (size_t i = 0; i < count; i++)                                                   \
            a[i] = (T)SHMEMI_C_OP_##OP(b[i], a[i]);                                          \
    }

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
                       MPI_Op op, shmemi_rop_fn fn);
/* Barrier over the group that keeps progressing, then make peers' stores visible. */
int shmemi_coll_sync(const char *routine, const shmemi_coll_t *g);
/* The agreement every engine runs before moving data (agree.c): bad is this PE's
 * verdict on its arguments; the routine, size and root must be equal on every PE.
 * 0 when all is well, else -1 on every PE. Callers that reject arguments before
 * calling an engine call it with bad = 1 so that the other PEs return too. */
int shmemi_coll_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                      uint64_t root);

/* collect's halves, for the flat and the hierarchical forms: the verdict after every
 * PE's {size or UINT64_MAX, room, kind} reached every PE in all[3 * n] (the same on every
 * PE; reported as the agreement reports; sizes[n], this PE's offset and the total
 * filled in), and the flat data movement on g->comm. */
int shmemi_collect_verdict(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                           const uint64_t *all, uint64_t *sizes, size_t *total, size_t *before);
int shmemi_collect_flat(const char *routine, const shmemi_coll_t *g, void *dest,
                        const void *source, size_t nbytes, const uint64_t *sizes, size_t total,
                        size_t before);

/* Largest count of one MPI collective call (INT_MAX, or SHMEMQ_COLL_MAX_COUNT). */
size_t shmemi_coll_limit(void);

/* ---- node shared-memory collectives (coll_node.c) ----
 * The team's node state, set up on the team's first collective (collective over the
 * team; its wait runs the SHMEM_DEBUG watchdog when watchdog is set); NULL when the
 * team's collectives go through MPI. */
struct shmemi_cnode *shmemi_cnode_get(struct shmemq_team *team, const char *routine,
                                      int watchdog);
/* The engines' node forms: bad is this PE's verdict on its arguments (already reported);
 * the agreement runs in the same shared-memory step as the first data exchange. Same
 * results and returns as the MPI forms. */
int shmemi_cnode_barrier(const char *routine, const shmemi_coll_t *g, int watchdog);
/* The agreement alone (shmemi_coll_agree on a node group). */
int shmemi_cnode_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                       uint64_t root);
int shmemi_cnode_bcast(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                       const void *source, size_t nbytes, int root, int write_root);
int shmemi_cnode_fcollect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                          const void *source, size_t nbytes);
/* collect: sizes and rooms are checked here, after the exchange (as coll.c does). */
int shmemi_cnode_collect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                         const void *source, size_t nbytes, uint64_t room);
int shmemi_cnode_alltoalls(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                           const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                           size_t esize);
int shmemi_cnode_reduce(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                        const void *source, size_t count, size_t esize, shmemi_rop_fn fn);
/* Prefix sums: small ones here; larger ones return 1 after the agreement, and the
 * caller moves the data with MPI (no second agreement). */
int shmemi_cnode_scan(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                      const void *source, size_t count, size_t esize, shmemi_rop_fn fn,
                      int exclusive);

/* ---- hierarchical collectives across nodes (set-up, choice and description in
 * coll_hier.c; the forms in coll_hier_engines.c) ----
 * Set up with the team's node state (shmemi_cnode_get) when the team spans nodes and
 * SHMEMQ_COLL_HIER allows; freed by shmemi_cnode_free. Each form runs the agreement
 * hierarchically (node step, leaders' agreement, node step) and then moves the data
 * hierarchically or, where the choice rule says the flat MPI collective is faster for
 * this size, returns 1 and the caller moves the data with MPI on the team's
 * communicator (no second agreement). 0 done, -1 on every PE (reported). */
void shmemi_chier_setup(struct shmemq_team *team, const char *routine);
void shmemi_chier_free(struct shmemq_team *team);
int shmemi_chier_barrier(const char *routine, const shmemi_coll_t *g, int watchdog);
int shmemi_chier_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                       uint64_t root); /* the agreement alone: 0, or -1 on every PE */
int shmemi_chier_bcast(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                       const void *source, size_t nbytes, int root, int write_root);
int shmemi_chier_fcollect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                          const void *source, size_t nbytes);
int shmemi_chier_reduce(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                        const void *source, size_t count, size_t esize, MPI_Datatype dt,
                        MPI_Op op, shmemi_rop_fn fn);
/* collect: 1 (nothing done) where the team keeps the flat collect (its nodes' PEs are
 * not consecutive in team order, or it is too large for the sizes to fit a slot). */
int shmemi_chier_collect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                         const void *source, size_t nbytes, uint64_t room);
/* The measured choice: a leader whose call is a trial reads the clock when it chooses
 * the path (after the agreement, which both paths share); the caller of a broadcast,
 * fcollect or reduction reports the outcome after the whole call, flat data movement
 * included, and the leaders agree on the class's path after its last trial. */
void shmemi_chier_timed(const shmemi_coll_t *g, int rc, const char *routine);
/* Tests: this process's naps in node-collective waits, those a post's wake ended, and
 * whether its waits may nap at all (coll_node.c). */
int shmemi_coll_wait_stats(uint64_t out[3]);
/* One line for shmemq_info: what WORLD's collectives use across nodes. */
void shmemi_chier_describe(const struct shmemq_team *team, char *buf, size_t n);

#endif /* SHMEMI_COLL_IMPL_H */
