/* bench/sim.h: the data queue's dry-run simulator (issue 23): P virtual PEs in one
 * process, one flush at a time, planned by the queues' own rules (src/queue/dq_plan.h).
 * No MPI. bench/simulate.c is the program; test/test_sim.cc checks the per-PE counts
 * against real queues' shmemx_queue_usage. */
#ifndef SHMEMQ_BENCH_SIM_H
#define SHMEMQ_BENCH_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int npes, n;        /* virtual PEs, PEs per node (n divides npes) */
    int hops;           /* 1 direct (flat alltoallv), 2 routed (2hop), 3 routed (3hop) */
    int records;        /* records per PE per flush */
    size_t elem;        /* bytes per record */
    int hot_pct;        /* 0 uniform destinations; else this % of records go to node 0 */
    uint64_t seed;
    size_t room;        /* logical room per destination (the queue's max_bytes) */
    size_t proom;       /* routed: a porter buffer's size at create (the model's, per hops) */
} sim_cfg_t;

/* Per PE, one flush. "sent" counts follow shmemx_queue_usage's msgs_last / peers_last /
 * bytes_last: a message is one peer's share of one exchange with data in it (the PE
 * itself included); bytes are this PE's own payload. */
typedef struct {
    uint32_t msgs, peers;       /* as usage: every hop, distinct PEs over all hops */
    uint32_t msgs1, msgs2;      /* routed: hop 1 (to porters), hop 2 (porter to nodes;
                                   3hop: to the cross peers) */
    uint32_t msgs3;             /* 3hop: hop 3 (on the destination's node) */
    uint32_t recv1, recv2, recv3; /* routed: messages received per hop; direct: recv1 */
    uint64_t bytes;             /* own payload bytes sent (usage bytes_last) */
    uint64_t wire_sent, wire_recv;   /* bytes on the wire, direct or routed hop 1
                                        (routed: record headers included) */
    uint64_t wire2_sent, wire2_recv; /* routed hop 2 */
    uint64_t wire3_sent, wire3_recv; /* 3hop: hop 3 */
    uint64_t buf_bytes;         /* routed: porter buffer capacity; direct: rooms (2P x room) */
    uint64_t buf_hw;            /* routed: porter staging received (hop 1); direct: fullest room */
    uint32_t full;              /* pushes refused FULL (the logical room) */
    uint32_t flags;             /* sim.c's own: this PE is its own peer in hop 1 (1), hop 2 (2) */
} sim_pe_t;

/* The destination of record i of PE src in flush f among npes PEs in nodes of n:
 * uniform, or with hot_pct % of the records to node 0's PEs; deterministic from seed.
 * Both simulators' workloads (this one's and bench/cqsim.h's). */
int sim_pick(uint64_t seed, int npes, int n, int hot_pct, int f, int src, int i);
/* The destination (team PE) of record i of PE src in flush f: sim_pick of c's grid. */
int sim_dest(const sim_cfg_t *c, int f, int src, int i);

typedef struct sim sim_t;
/* NULL when memory is short or the config is bad (n must divide npes, hops 1-3). */
sim_t *sim_new(const sim_cfg_t *c);
void sim_free(sim_t *s);
/* Run flush f (0, 1, ...; porter buffers keep their capacity across flushes, as the
 * queue's do); fills pe[npes] and fanin[npes / n] (messages arriving at the node's PEs
 * from other nodes; routed, only hop 2 crosses nodes). */
void sim_flush(sim_t *s, int f, sim_pe_t *pe, uint64_t *fanin);

#ifdef __cplusplus
}
#endif
#endif
