/* coll_node.h: the node shared-memory collectives' segment and steps (coll_node.c),
 * shared with the hierarchical collectives (coll_hier.c sets up their node groups,
 * coll_hier_engines.c runs their node steps on the same machinery). Private to coll*.c. */
#ifndef SHMEMI_COLL_NODE_H
#define SHMEMI_COLL_NODE_H

#include "coll_impl.h"
#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#define cn_relax() __builtin_ia32_pause()
#else
#define cn_relax() ((void)0)
#endif

#define CN_LINE 64
#define CN_SLOT (16 * 1024)              /* one slot: header line + payload */
#define CN_CAP (CN_SLOT - 48)            /* payload bytes in a slot (from line.data) */
#define CN_PART (CN_LINE + 2 * CN_SLOT)  /* one PE's part of the segment */

typedef struct {
    _Atomic uint64_t epoch;
    uint64_t kind;
    uint64_t size;
    uint64_t extra;
    int64_t root;
    uint32_t bad;
    _Atomic uint32_t sleepers; /* PEs asleep on this line's epoch (shmemi_cn_wait) */
    unsigned char data[16]; /* the payload starts here and runs on past the line */
} cn_line_t;
_Static_assert(sizeof(cn_line_t) == CN_LINE, "one header per cache line");

struct shmemi_cnode {
    int me, n;
    uint64_t epoch;        /* last step this PE posted */
    const char *ahead;     /* the routine whose step this PE left without waiting for the
                            * peers' (a 1.4 broadcast's root), else NULL: cn_catch_up */
    int ahead_loud;        /* and how that routine reports (shmemi_coll_t.loud) */
    char **part;           /* per team PE: its part of the segment, mapped here */
    char **base[2];        /* per team PE: its heap / data segment mapped here */
    MPI_Win win;           /* MPI_WIN_NULL for a team of one */
    void *own;             /* a team of one: its part, malloc'ed */
};

static inline cn_line_t *cn_slot(const struct shmemi_cnode *c, int pe, uint64_t e)
{
    return (cn_line_t *)(void *)(c->part[pe] + CN_LINE + (size_t)(e & 1) * CN_SLOT);
}

/* Where this PE writes the payload of its next step. */
static inline unsigned char *cn_out(const struct shmemi_cnode *c)
{
    return cn_slot(c, c->me, c->epoch + 1)->data;
}

/* Payload of pe's current step (after cn_round). */
static inline const unsigned char *cn_in(const struct shmemi_cnode *c, int pe)
{
    return cn_slot(c, pe, c->epoch)->data;
}

/* p (symmetric on this PE, len > 0 bytes) as mapped from team PE pe. */
static inline const char *cn_peer(const struct shmemi_cnode *c, int pe, const void *p)
{
    uintptr_t off = 0;
    int r = shmemi_region(p, 1, &off); /* the caller checked: 0 or 1 */
    return c->base[r > 0][pe] + off;
}

/* Make what peers wrote through the windows visible to this PE's loads. Inside a
 * single-node job nothing writes through MPI (xport.h: every put, get and atomic is a
 * load, store or CPU atomic), so a fence does; otherwise node peers' atomics are MPI
 * accumulates and MPI_Win_sync is the call MPI asks for. */
static inline void shmemi_cn_sync_windows(void)
{
    if (SHMEMI_LIKELY(shmemi.amo_direct)) {
        atomic_thread_fence(memory_order_seq_cst);
        return;
    }
    MPI_Win_sync(shmemi.heap_win);
    MPI_Win_sync(shmemi.data_win);
}

/* Set up c's segment over team (collective over team->comm; every member's heaps are
 * mapped here). Failures end the job: the peers are in the same call. */
struct shmemi_cnode *shmemi_cn_alloc(struct shmemq_team *team, const char *routine);
void shmemi_cn_destroy(struct shmemi_cnode *c);

void shmemi_cn_wake(cn_line_t *l); /* coll_node.c */

/* Post step e on line l (its header and payload written before) and wake any PE asleep
 * on it. seq_cst on both sides (here and in shmemi_cn_wait's sleep) so that a poster
 * that sees no sleeper is seen by the would-be sleeper's check of the epoch. */
static inline void shmemi_cn_post(cn_line_t *l, uint64_t e)
{
    atomic_store_explicit(&l->epoch, e, memory_order_seq_cst);
    if (SHMEMI_UNLIKELY(atomic_load_explicit(&l->sleepers, memory_order_seq_cst) != 0))
        shmemi_cn_wake(l);
}

/* Wait for line l to show epoch e, progressing; on a machine with more PEs than cores
 * the wait sleeps in the kernel (SHMEMQ_COLL_WAIT, coll_node.c). */
void shmemi_cn_wait(const struct shmemi_cnode *c, const shmemi_coll_t *g, const char *routine,
                    int watchdog, const cn_line_t *l, uint64_t e);

#endif /* SHMEMI_COLL_NODE_H */
