/* coll_hier.h: what the hierarchical collectives' two files share: a team's state across
 * nodes (struct shmemi_chier) and the measured choice of the data path. coll_hier.c sets
 * the state up and owns the choice; coll_hier_engines.c runs the steps and the
 * collectives on it. Private to coll_hier*.c. */
#ifndef SHMEMI_COLL_HIER_H
#define SHMEMI_COLL_HIER_H

#include "coll_node.h"

enum { H_BCAST, H_REDUCE, H_FCOLLECT, H_KINDS };
enum { H_HIER = 0, H_FLAT = 1 }; /* the data path of a call */

/* The auto choice is measured, per team, kind and size class (bytes rounded up to a
 * power of two; per PE for fcollect): after H_WARMUP hierarchical calls (connections,
 * cold caches), the leaders run H_TRIALS calls of each path, alternating, time each
 * whole call (from entry to return, flat data movement included), and at the last trial
 * agree with one allreduce among themselves on the slowest leader's fastest call of each
 * path; the faster path serves every later call of the class. Every leader makes the
 * same calls in the same order, so they all agree at the same call and choose alike;
 * the other PEs learn the path from the release. Barriers are measured the same way by
 * every PE (shmemi_chier_barrier); collect is always hierarchical (each PE's size
 * differs, so no size class is known before its agreement). */
enum { H_WARMUP = 8, H_TRIALS = 8, H_CLASSES = 64 };

typedef struct {
    uint32_t calls;  /* calls of the class so far, warm-up included */
    int8_t choice;   /* H_HIER or H_FLAT once measured; -1 before */
    double t[2];     /* per path, this PE's fastest trial call (seconds; 0: none yet) */
} h_tune_t;

/* The path of call number `calls` of an undecided class: hierarchical while warming up
 * (first calls pay for connections and cold caches), then alternating. */
static inline int shmemi_chier_trial_path(const h_tune_t *t)
{
    return t->calls < H_WARMUP ? H_HIER : (int)((t->calls - H_WARMUP) & 1) ? H_FLAT : H_HIER;
}

/* Record one call of t's class on path p that took dt seconds; 1 when it was the last
 * trial (the class is then decided by shmemi_chier_decide). */
static inline int shmemi_chier_record(h_tune_t *t, int p, double dt)
{
    if (t->calls >= H_WARMUP && (t->t[p] == 0 || dt < t->t[p]))
        t->t[p] = dt;
    return ++t->calls == H_WARMUP + 2 * H_TRIALS;
}

struct shmemi_chier {
    struct shmemq_team node; /* the team's PEs on this node (comm, my_pe, n_pes, world_pe) */
    struct shmemi_cnode *c;  /* their segment */
    MPI_Comm leaders;        /* one PE per node, in team order; MPI_COMM_NULL elsewhere */
    int team_me, team_n;
    int nnodes, my_node, maxper;
    int contiguous; /* every node's team PEs are consecutive in team order */
    int forced;     /* SHMEMQ_COLL_HIER=1 */
    int *node_of;   /* team PE -> node (its leader's rank in leaders) */
    int *first;     /* node -> its lowest team PE */
    int *count;     /* node -> its team PEs */
    int *team_pe;   /* node rank -> team PE, for this node */
    h_tune_t tune[H_KINDS][H_CLASSES];
    h_tune_t bar;    /* barriers and syncs (one class) */
    h_tune_t *trial; /* the class whose trial path this leader's current call runs */
    int trial_path;
    double trial_t0; /* when it chose it (the agreement before is the same on both paths) */
};

/* The leader, once the arguments are agreed: the path of this call of kind `what`
 * (coll_hier.c). */
int shmemi_chier_choose(struct shmemi_chier *h, int what, size_t bytes);
/* The verdict of a class's trials, agreed over comm (coll_hier.c). */
void shmemi_chier_decide(const shmemi_coll_t *g, h_tune_t *t, MPI_Comm comm,
                         const char *routine, const char *what, size_t bytes);

#endif /* SHMEMI_COLL_HIER_H */
