/*
 * queue_usage.h: per-queue traffic counters (messages, bytes and distinct peers per flush
 * and in total) shared by both queue kinds, and the sizes the memory model and the comm
 * queue's create both use (queue_usage.c; docs/queues.md "Usage and the memory model",
 * docs/queues_design.md "Memory model").
 *
 * Counting costs one branch and a store per burst (comm) or a pass over the per-peer
 * counts a flush already makes (data); nothing is added to push paths.
 */
#ifndef SHMEMI_QUEUE_USAGE_H
#define SHMEMI_QUEUE_USAGE_H

#include <stdint.h>
#include <stdlib.h>

typedef struct shmemi_qtraffic {
    uint32_t *mark;      /* per PE: flush interval of the last send to it, 0 never;
                            allocated at the first send (4 bytes per PE) */
    int npes;
    uint32_t gen;        /* current flush interval, from 1 */
    uint64_t peers_total, peers_cur;
    uint64_t msgs;       /* data queues: messages in total (comm queues use st.bursts) */
    uint64_t msgs_at, bytes_at; /* totals when the previous flush ended */
    uint64_t msgs_last, bytes_last, peers_last;
} shmemi_qtraffic_t;

/* A message (burst) left for pe. Without the mark array (allocation failed) peers are
 * not counted; messages and bytes still are. */
static inline void shmemi_qtraffic_sent(shmemi_qtraffic_t *t, int npes, int pe)
{
    if (t->mark == NULL) {
        t->mark = calloc((size_t)npes, sizeof *t->mark);
        if (t->mark == NULL)
            return;
        t->npes = npes;
        if (t->gen == 0)
            t->gen = 1;
    }
    uint32_t m = t->mark[pe];
    if (m != t->gen) {
        t->peers_total += m == 0;
        t->peers_cur++;
        t->mark[pe] = t->gen;
    }
}

/* A flush ended: the interval's figures become "last"; msgs/bytes are the totals now. */
static inline void shmemi_qtraffic_flushed(shmemi_qtraffic_t *t, uint64_t msgs, uint64_t bytes)
{
    t->msgs_last = msgs - t->msgs_at;
    t->bytes_last = bytes - t->bytes_at;
    t->msgs_at = msgs;
    t->bytes_at = bytes;
    t->peers_last = t->peers_cur;
    t->peers_cur = 0;
    if (t->gen == 0)
        t->gen = 1;
    t->gen++;
    if (t->gen == 0) { /* wrapped after 2^32 flushes: old marks would look current */
        for (int p = 0; p < t->npes && t->mark; p++)
            t->mark[p] = t->mark[p] ? 1 : 0;
        t->gen = 2;
    }
}

static inline void shmemi_qtraffic_free(shmemi_qtraffic_t *t)
{
    free(t->mark);
    t->mark = NULL;
}

/* Bytes of the peer-tracking array once allocated. */
static inline uint64_t shmemi_qtraffic_bytes(const shmemi_qtraffic_t *t)
{
    return t->mark ? (uint64_t)t->npes * sizeof *t->mark : 0;
}

/* Comm queue sizes for a path (0 RMA, 1 AM) and PE count, as create sets them: data
 * bytes per chunk, slots of the combining hash, bytes of the burst scratch mapping. */
void shmemi_cq_sizes(int path, int npes, size_t *cbytes, uint32_t *hsize, size_t *scratch);
/* The chunks a comm queue of this op_type with chunks of cbytes data bytes may hold at
 * once (its memory budget, SHMEMQ_QUEUE_BUDGET as read at shmem_init; unset, the default
 * of a direct or, node_routed, a node-routed queue), at least 1; UINT64_MAX when the
 * budget is off (0). */
uint64_t shmemi_cq_budget_chunks(int op_type, size_t cbytes, int node_routed);
/* Tests only (test_commq_budget.cc, test_cqsim.cc): later creates and model calls take
 * the budget as if SHMEMQ_QUEUE_BUDGET were `value` (a bad one: the default); NULL: the
 * variable again. */
void shmemi_queue_comm_budget_test(const char *value);

#endif
