/*
 * dq_route.h: the data queue's routed mode (SHMEMQ_DATAQ_ROUTE=2hop; docs/data_queues.md,
 * "Routed mode"), as bale's two-hop conveyors route.
 *
 * The team's PEs form a grid of nodes x n (n PEs per node, every node the same size;
 * a team whose nodes differ stays direct). A record for destination d first goes to the
 * "porter": the PE of the sender's node whose node-local rank is d's (hop 1, on the
 * node's communicator), then along that local rank's "column" to d's node (hop 2). So
 * a PE exchanges with n + P/n - 1 peers, and keeps n outgoing buffers (one per porter)
 * instead of P outgoing and P incoming rooms.
 *
 * What the program sees is direct mode's: `room` (max_bytes) stays the logical capacity
 * per destination and per source. Push checks the logical count out_len[d] (FULL exactly
 * when direct mode would say FULL) and appends a run to its porter's buffer, which grows
 * when it fills, so a push that is logically allowed always lands. The receiver's FIFO
 * per source is the record in the hop-2 staging where it arrived (in_cap 0: borrowed),
 * or, for data still unpopped at the next flush, memory of its own (freed once popped
 * empty); it takes at most `room - unpopped` bytes
 * from each source per flush; what it could not take is acknowledged back (two hops
 * again, only in a flush where some PE overflowed) and stays outgoing at the sender,
 * in order. The queue's hot arrays (in_at, in_head, in_len, out_len) keep their
 * meaning, so pop and the queries are shared with direct mode.
 */
#ifndef SHMEMI_DQ_ROUTE_H
#define SHMEMI_DQ_ROUTE_H

#include "data_queue.h"
#include "dq_plan.h" /* struct dq_run, struct dq_rec: the MPI-free planning */

/* A growable byte buffer. */
struct dq_rbuf {
    char *p;
    size_t len, cap;
};

#define DQ_RT_NONE ((size_t)-1)

struct shmemi_dq_route {
    int n, nnodes;       /* PEs per node, nodes: P = n * nnodes */
    int lr, node;        /* this PE's node-local rank and node index */
    int k;               /* max(n, nnodes): length of the per-hop count arrays */
    int *grid;           /* grid[d] = node(d) * n + lr(d) */
    int *pe_at;          /* pe_at[g] = team PE at grid position g */
    MPI_Comm nodec;      /* the team PEs of this node, rank = local rank */
    MPI_Comm colc;       /* the team PEs with this local rank, rank = node index */
    size_t proom;        /* a porter buffer's size at create */
    int int_counts;      /* every hop's counts fit int: MPI_Ialltoallv, else _c */
    struct dq_rbuf *porter; /* n: runs for the destinations porter l serves */
    size_t *plast;       /* n: offset of the last run's header, or DQ_RT_NONE */
    struct dq_rbuf st[4]; /* staging: hop-1 send, hop-1 receive, hop-2 send, hop-2 receive */
    size_t *in_cap;      /* P: bytes allocated for source s's FIFO (h.in_at[s]); 0: none, or
                            borrowed (h.in_at[s] points into st[3]) */
    size_t *cur;         /* P: flush scratch (where d's payload ends in st[0]) */
    uint64_t *cnt;       /* 2k: bytes per peer of one hop, sent and received */
    void *vbuf;          /* counts and displacements of one MPI_Ialltoallv(_c) */
};

/* Push for a routed queue (the caller checked the arguments and the logical room and
 * holds the lock): append to the porter buffer of pe's local rank. 0 or NOMEM. */
int shmemi_queue_data_route_push(struct shmemi_dataq *q, const void *src, size_t bytes, int pe);

/* Collective over q->comm (every PE of the team after the config agreement; maxroom:
 * the largest room of any PE): group the team by node; *uneven = 1 if the nodes differ in
 * size, 2 if a flush could need MPI_Ialltoallv_c and the MPI is older than 4 (the caller
 * then stays direct, alike on every PE),
 * else set up q->rt (communicators and memory). Returns 0 or NOMEM/MPI (this PE only:
 * the caller agrees on the outcome). */
int shmemi_queue_data_route_setup(struct shmemi_dataq *q, shmem_team_t team, size_t maxroom,
                                  int *uneven);
void shmemi_queue_data_route_free(struct shmemi_dataq *q);

/* One whole flush, blocking (collective over the team). Sets q->last_rc. 0, or an MPI
 * error. The caller holds nothing; it takes the queue's lock. */
int shmemi_queue_data_route_flush(struct shmemi_dataq *q);

/* The model (queue_usage.c): bytes of the queue object and its arrays at create, and a
 * porter buffer's size at create, for P PEs, n per node (n divides P). */
uint64_t shmemi_queue_data_route_meta(int npes, int n);
size_t shmemi_queue_data_route_proom(int npes, int n);
/* Usage: porter buffers now (count and bytes) and the staging plus per-source FIFO
 * bytes allocated now (they follow the traffic). Caller holds the lock. */
void shmemi_queue_data_route_usage(const struct shmemi_dataq *q, uint64_t *buffers,
                                   uint64_t *buffer_bytes, uint64_t *scratch);

#endif /* SHMEMI_DQ_ROUTE_H */
