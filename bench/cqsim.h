/* bench/cqsim.h: the comm queue's dry-run simulator (issue 23): P virtual PEs in one
 * process, each pushing ADDs (or, with kinds > 1, ADD, SET, AND, OR, XOR in turn) into
 * one comm queue and flushing, planned by the queue's own
 * rules (src/queue/cq_plan.h: chunk size, the budget's chunk count and its "issue the
 * fullest eighth", the flush sweep). No MPI. The path simulated is the default one: RMA
 * bursts off the node (or the AM transport's requests, the same lifecycle), node bursts
 * to this node's PEs where atomics take the node transport. Not simulated: the AM path
 * (SHMEMQ_COMM_PATH=am), combining (SHMEMQ_COMBINE), held sums (SHMEMQ_HOLD_SUMS=0 matches),
 * owner-posted node bursts (their
 * records are compacted: SHMEMQ_OWNER_APPLY=0 or a table under 32 KiB matches), FULL
 * (max_elems must hold a flush's records). bench/simulate.c is the program (-k comm);
 * test/test_cqsim.cc checks the per-PE counts against real queues' shmemx_queue_usage. */
#ifndef SHMEMQ_BENCH_CQSIM_H
#define SHMEMQ_BENCH_CQSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int npes, n;        /* virtual PEs, PEs per node (n divides npes) */
    int node_atomics;   /* atomic bursts to this node's PEs take the node transport
                           (the job is one node, or off-node atomics are AM requests:
                           shmemx_queue_model's scratch_once_bytes != 0 for an ADD queue) */
    int records;        /* operations per PE per flush */
    int kinds;          /* op kinds pushed, 1-5: record i is ADD, SET, AND, OR, XOR's
                           (i % kinds); one open chunk per (target, kind) */
    size_t esize;       /* operand bytes (4 or 8) */
    int hot_pct;        /* 0 uniform targets; else this % of records go to node 0 */
    uint64_t seed;
    size_t cbytes;      /* data bytes per chunk (cq_plan_chunk_bytes) */
    uint64_t budget;    /* chunks the queue may hold (cq_plan_budget_chunks: its op kinds
                           are the queue's, 7 for SHMEM_OP_ANY) */
    int node_routed;    /* SHMEMQ_QUEUE_ROUTE=node: records for a PE of another node go in
                           one chunk per (node, kind), sent to the node's lowest PE (its
                           server); 0: a chunk per (PE, kind) */
} cqsim_cfg_t;

/* Per PE, one flush (its pushes and the flush that ends them). msgs, bytes and peers are
 * shmemx_queue_usage's msgs_last, bytes_last, peers_last; chunks is its buffers. */
typedef struct {
    uint32_t msgs, peers;   /* bursts sent, distinct targets */
    uint32_t msgs_node, peers_node; /* of them, node bursts (applied by this PE, no
                                       message) and their targets */
    uint32_t recv, recv_off; /* bursts arriving here: all, and from other nodes */
    uint64_t bytes;         /* payload bytes sent (usage bytes_last) */
    uint64_t bytes_node;    /* of them, in node bursts */
    uint64_t bytes_recv_off; /* payload bytes arriving from other nodes */
    uint32_t early;         /* chunks issued early by the budget in this flush */
    uint32_t selections;    /* budget shortfalls (each one pass to bucket, one to issue) */
    uint64_t scanned;       /* open chunks those passes visited */
    uint32_t open_hw;       /* most chunks open at once */
    uint32_t sweep_first;   /* origins whose flush sweep issued a burst here first */
    uint64_t chunks;        /* chunks held after the flush (usage buffers) */
    uint64_t early_total;   /* chunks issued early since the queue was made */
} cqsim_pe_t;

typedef struct cqsim cqsim_t;
/* NULL when memory is short or the config is bad (n must divide npes). */
cqsim_t *cqsim_new(const cqsim_cfg_t *c);
void cqsim_free(cqsim_t *s);
/* Run flush f (0, 1, ...; chunks stay allocated across flushes, as a queue keeps them);
 * fills pe[npes] and fanin[npes / n] (bursts arriving at the node's PEs from other
 * nodes). Every origin is simulated in turn with only its own state: O(P) memory. */
void cqsim_flush(cqsim_t *s, int f, cqsim_pe_t *pe, uint64_t *fanin);

#ifdef __cplusplus
}
#endif
#endif
