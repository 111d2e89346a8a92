/*
 * comm_queue.h: internals of the communication queues (docs/queues_design.md).
 *
 * A queue keeps, per target PE and per operation, one open "chunk": a preallocated
 * buffer that collects operations of one element type on one window. A full chunk (or a
 * flush, or a timeout) issues it as ONE burst of a transport (xport.h): the node
 * transport (cq_node.c), one MPI call with indexed datatypes (RMA path: cq_rma.c,
 * shmemi_mpi_burst) or one message applied by the target PE (AM path: am.c sends and
 * receives, cq_apply.c applies). Chunks come from a per-queue free list, so the push
 * path never allocates once the queue is warm.
 *
 * Chunk/message layout (the same bytes are sent by the AM path):
 *   cq_msghdr_t, then
 *   atomics: count displacements (uint64) then count operands (esize bytes each)
 *   one-element typed PUT/GET (tidx of the element type): the same slot layout, the
 *            operand being the value (PUT) or the uint64 local address (GET, esize 8)
 *   PUT:     a stream of records {uint64 disp, uint64 len, payload padded to 8}
 *   GET:     a stream of records {uint64 disp, uint64 len, uint64 local address}
 *            (tidx SHMEMI_XT_BYTES: several elements, pushmem, strided)
 *   PACKED atomics (AM messages only): count uint32 displacements, one operand
 * Displacements are offsets from the start of the target's symmetric heap or data
 * segment (h->win); an RMA burst adds the heap's displacement in its window (heap_adj).
 *
 * Capacity (max_elems): an open atomic chunk's `cap` is a grant of records that counts
 * as outstanding from the moment it is granted; the unused part is given back when the
 * chunk leaves or when the queue runs out (cq_settle). So `outstanding` is exact or
 * over by unused grants; the exact count is outstanding - granted + the records in open
 * chunks (the sum of the slots' n).
 *
 * That sum costs O(open chunks) (a walk of the open list), and programs may ask for the
 * count after every push (shmem_queue_progress in the proposal's loops). So the count
 * has two modes: while the program rarely asks, it is summed when asked and pushes keep
 * no queue-wide counter (a counter every push increments is a chain through memory: 14%
 * of the histogram's push loop); after CQ_COUNT_AFTER queries with no burst between
 * them, fast.counting is set and every push also adds to fast.open_ops, so a query is
 * O(1). A burst that leaves with no query since the previous one turns counting off
 * again.
 */
#ifndef SHMEMQ_COMM_QUEUE_H
#define SHMEMQ_COMM_QUEUE_H

#include "queue.h"
#include "xport.h"
#include "queue_usage.h"
#include "cq_plan.h"
#include <pthread.h>

/* Operation slots: ADD and INC share one (INC is ADD of 1). */
enum { CQ_S_PUT = 0, CQ_S_GET, CQ_S_ADD, CQ_S_SET, CQ_S_AND, CQ_S_OR, CQ_S_XOR, CQ_NSLOTS };

/* Element types: the transport interface's (xport_types.h), SHMEMI_XT_* in
 * SHMEMQ_RMA_TYPES order, SHMEMI_XT_BYTES for records of several elements. */

/* BATCH: the chunk as it is. PACKED: an atomic batch whose displacements all fit 32
 * bits and whose operands are all equal (INC, or ADD of one constant: the histogram
 * case), sent as count uint32 displacements then one operand, a quarter of the bytes. */
enum { CQ_MSG_BATCH = 1, CQ_MSG_FLUSH = 2, CQ_MSG_PACKED = 3 };
enum { CQ_PATH_RMA = 0, CQ_PATH_AM = 1 };
#define CQ_TAG_MSG 1 /* batches and flush requests: one tag keeps them in order */

typedef struct {
    uint32_t type;  /* CQ_MSG_* */
    uint32_t count; /* records */
    uint8_t slot;   /* CQ_S_* */
    uint8_t tidx;
    uint8_t win;    /* 0: heap window, 1: data window */
    uint8_t esize;
    uint32_t token; /* FLUSH: tag of the reply */
} cq_msghdr_t;

typedef struct shmemq_cq_chunk {
    /* the one list the chunk is on: free, AM in flight, RMA pending, or open (a slot's,
     * doubly linked through prev so that a burst unlinks it in O(1): the budget) */
    struct shmemq_cq_chunk *next;
    struct shmemq_cq_chunk *prev;
    MPI_Request req;
    int pe;
    uint32_t used; /* PUT/GET: stream bytes used */
    unsigned char *msg; /* cq_msghdr_t followed by data */
} cq_chunk_t;

/* The simulator (bench/cqsim.c) counts chunk bytes with cq_plan.h's figure. */
_Static_assert(sizeof(cq_chunk_t) + 64 + sizeof(cq_msghdr_t) == CQ_PLAN_CHUNK_EXTRA,
               "CQ_PLAN_CHUNK_EXTRA is a chunk's allocation beside its data");

/* One open chunk per (target PE, slot): the public layout the inline push reads. */
typedef shmemq_cq_slot_t cq_slot_t;
#define CQ_NOKEY 0xffffffffu
_Static_assert((int)CQ_NSLOTS == (int)SHMEMQ_CQ_NSLOTS && (int)SHMEMI_XT_NTYPES == (int)SHMEMQ_CQ_NTYPES, "slot layout");
_Static_assert(SHMEMQ_CQ_SLOT(SHMEM_OP_PUT) == (int)CQ_S_PUT &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_GET) == (int)CQ_S_GET &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_ATOMIC_ADD) == (int)CQ_S_ADD &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_ATOMIC_INC) == (int)CQ_S_ADD &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_ATOMIC_SET) == (int)CQ_S_SET &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_ATOMIC_AND) == (int)CQ_S_AND &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_ATOMIC_OR) == (int)CQ_S_OR &&
               SHMEMQ_CQ_SLOT(SHMEM_OP_ATOMIC_XOR) == (int)CQ_S_XOR, "slot numbering");
_Static_assert(sizeof(long double) <= 16, "the inline push's 15-byte range margin");

#define CQ_MAGIC_LIVE SHMEMQ_CQ_MAGIC_LIVE
#define CQ_MAGIC_DEAD 0x646561647175657eULL

#define CQ_RHOLD_N 4      /* windows of sums held for other PEs (cq_rhold.c) */
#define CQ_RHOLD_CHUNKS 4 /* chunks a window's drain writes its bursts in, at most */
/* A window of held sums (cq_dense.h's sumwin_*): n records held (0: none) over the words
 * from displacement lo, words min..max of it touched. */
typedef struct cq_sumwin {
    uint64_t lo;
    uint64_t n;
    uint32_t min, max;
} cq_sumwin_t;
struct shmem_queue_s {
    /* MUST stay first: magic, n_pes, slots, the per-type inline-path ops (cq_set_fast)
     * and the address ranges the inline push reads */
    shmemq_cq_fast_t fast;
    uint64_t outstanding;  /* in flight + buffered + unused grants (see the top) */
    uint64_t max_elems;
    uint64_t granted;      /* sum of the open atomic chunks' caps */
    uint32_t grant;        /* records granted to an atomic chunk at a time */
    uint64_t id;
    int shared;
    int path;      /* CQ_PATH_* for atomics and small puts */
    int combine;   /* 0 off, 1 on, 2 adaptive */
    uint32_t comb_skip; /* adaptive: bursts left to send uncombined */
    int dedupe;    /* merge every atomic burst (one-process Open MPI windows) */
    int timed;     /* timeout_flush >= 0 */
    uint32_t opmask; /* bit per allowed shmem_op_type_t */
    int progress_counts_only; /* shmem_queue_progress may only count (not SHARED, not timed) */
    int me;
    int n_idx;     /* entries per plane: n_pes, or (node-routed) this node's PEs + other nodes */
    int n_local;   /* node-routed: this node's PEs (the first n_local entries) */
    double timeout;
    double t_oldest; /* push time of the oldest buffered op (timed queues) */
    uint64_t n_buffered;
    uint64_t n_rma_issued;
    uint64_t n_am_issued;
    uint32_t progress_calls; /* counting progress calls: every 256th does the work */
    uint32_t qcalls; /* count queries (progress, query_size/attr) since the last burst */
    size_t cbytes; /* data bytes per chunk of this queue */
    int rma_dirty[2];
    int one_pe;    /* the only PE chunks were opened for since the last full flush;
                      -1: none yet, -2: several (the SHMEM_PE_SAME case, detected) */
    unsigned char *am_dirty;  /* per PE: AM batches sent since the last flush */
    /* PEs with RMA bursts since the last remote completion (cq_rma.c flushes each of
     * them: MPICH 4.0.2's MPI_Win_flush_all and flush_local_all left such puts to
     * several targets incomplete); rma_pe_dirty marks the listed ones */
    int *rma_pes;
    int n_rma_pes;
    unsigned char *rma_pe_dirty;
    cq_chunk_t *free_chunks;
    cq_chunk_t *am_head, *am_tail; /* AM sends in flight, oldest first */
    cq_chunk_t *rma_pending;       /* RMA bursts whose origin buffers are in use */
    uint64_t n_chunks;
    /* every slot of the queue, the planes of fast.plane one after another (only the op
     * slots the queue carries: one plane for a queue of one op, 7 for SHMEM_OP_ANY) */
    cq_slot_t *slot_mem;
    size_t n_slot_mem;
    /* The memory budget (docs/queues_design.md, "One memory budget"): at most
     * budget_chunks chunks (open, in flight or free); open ones are listed so that the
     * fullest can be found when it runs out without a scan of every slot */
    uint64_t budget_chunks;
    cq_chunk_t *open_head;
    uint64_t n_open;
    uint64_t budget_issued; /* chunks issued early because the budget ran out */
    /* scratch for MPI bursts' datatypes and for combining, sized for one chunk */
    shmemi_mpi_burst_scratch_t burst_scratch; /* its arrays live in the mapping below */
    uint32_t *hash;
    uint32_t *hstamp;
    size_t scratch_bytes; /* the one mapping hstamp, hash and burst_scratch live in
                             (cq_scratch.c) */
    uint32_t hgen;
    uint32_t hmask;
    uint64_t *dense;    /* node bursts: per-word sums of a burst's ADDs (node_add_dense) */
    uint64_t dense_cap;
    /* ADD bursts to this PE's own memory summed in the top of `dense` and applied later
     * (cq_node.c, "Held sums"); their records stay outstanding until then */
    unsigned char *hold_base; /* the region the sums are for */
    cq_sumwin_t hold;
    int hold_esize;
    /* ADD bursts to other PEs summed per target, then applied (node peers) or sent as one
     * record per word touched (cq_rhold.c); their records stay outstanding until then */
    int rh_on;                /* SHMEMQ_HOLD_SUMS at create */
    int rh_busy;              /* draining (a depth): no burst is held meanwhile */
    struct cq_rhold {
        cq_sumwin_t s;        /* s.n == 0: window free */
        uint64_t *acc;        /* its sums (CQ_RWIN_WORDS words), allocated at first use */
        unsigned char *base;  /* a node peer's region mapped here: applied, not sent */
        int pe;
        int win, tidx, esize;
        cq_chunk_t *chunk[CQ_RHOLD_CHUNKS]; /* held bursts' chunks, [0] the first's: the
                                               drain writes its bursts in them */
        int nch;
    } rh[CQ_RHOLD_N];
    uint32_t own_busy;  /* node mailboxes holding this queue's bursts (cq_owner.c) */
    int own_mode;       /* SHMEMQ_OWNER_APPLY at create: 0 off, 1 all atomics, 2 auto */
    MPI_Request *flush_reqs; /* flush: reply receives and request sends, 2 per PE */
    cq_msghdr_t *flush_hdrs; /* flush request headers, per PE */
    int early;        /* start a flush epoch at half full (SHMEMQ_EARLY_FLUSH) */
    int pack;         /* AM path: send qualifying atomic batches PACKED (SHMEMQ_PACK) */
    int epoch_pending; /* an AM flush epoch is in flight */
    int epoch_npes;    /* its PEs (requests 2 per PE in flush_reqs) */
    uint64_t epoch_ops; /* operations it completes */
    shmemx_queue_stats_t st;
    pthread_mutex_t lock;
    int has_thread;        /* SHMEMQ_PROGRESS_THREAD: a thread honours timeout_flush */
    volatile int stop_thread;
    pthread_t thread;
    struct shmem_queue_s *next_dead;
    shmemi_qtraffic_t tr; /* messages, bytes and peers per flush (queue_usage.h) */
};

/* ---- globals (comm_queue.c / am.c) ---- */
extern size_t cq_chunk_bytes; /* data bytes per chunk / message (same on every PE) */
/* SHMEMQ_CHUNK_BYTES as cq_am_init sets cq_chunk_bytes from it (am.c): the valid value
 * rounded down to 64, else cq_chunk_bytes as it is; also read before that (cq_owner.c) */
size_t cq_chunk_setting(void);
extern int cq_atomic_apply;   /* cq_apply.c: apply AM atomics with __atomic (am.c sets it) */
extern const unsigned char cq_esize[SHMEMI_XT_NTYPES + 1];
extern uint32_t cq_type_ops_rw[SHMEMI_XT_NTYPES + 1]; /* bit per op allowed for the type */
extern const unsigned char cq_one[16]; /* the INC operand: 1 in the low (little-endian) bytes */

/* One record of an atomic slot: *p (uint32_t or uint64_t, p's type) updated by v with
 * the same __atomic operations as shmem_atomic_* on the node, so either side of a node
 * may apply. The one op switch of whoever applies bursts (cq_apply.c, cq_owner.c), the
 * loop around it theirs; other slots do nothing. */
#define CQ_ATOMIC_OP(slot, p, v)                                                           \
    do {                                                                                   \
        switch (slot) {                                                                    \
        case CQ_S_ADD: __atomic_fetch_add(p, v, __ATOMIC_RELAXED); break;                  \
        case CQ_S_SET: __atomic_store_n(p, v, __ATOMIC_RELAXED); break;                    \
        case CQ_S_AND: __atomic_fetch_and(p, v, __ATOMIC_RELAXED); break;                  \
        case CQ_S_OR: __atomic_fetch_or(p, v, __ATOMIC_RELAXED); break;                    \
        case CQ_S_XOR: __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); break;                  \
        }                                                                                  \
    } while (0)

/* record application (cq_apply.c): a message's batch (cq_apply), one record */
void cq_apply(const cq_msghdr_t *h, const unsigned char *data);
void cq_apply_one(int slot, int esize, int win, uint64_t disp, const void *operand);
/* Bursts applied to a region whose base is mapped here: by the target (AM path, its
 * own base) or by the origin (node transport, the peer's base; atomic then). */
void cq_apply_atomics(unsigned char *base, int slot, int esize, const uint64_t *disp,
                      const unsigned char *opnd, uint32_t n, int atomic);
void cq_apply_puts(unsigned char *base, const unsigned char *records, uint32_t n);
void cq_apply_gets(const unsigned char *base, const unsigned char *records, uint32_t n);
/* One-element typed records (slot layout): n elements of es bytes at base + disp[i],
 * from vals + i*es (PUT), or into the 8-byte local addresses at addrs + i*8 (GET). */
void cq_apply_typed_puts(unsigned char *base, const uint64_t *disp, const unsigned char *vals,
                         uint32_t n, size_t es);
void cq_apply_typed_gets(const unsigned char *base, const uint64_t *disp,
                         const unsigned char *addrs, uint32_t n, size_t es);
/* message engine (am.c) */
size_t cq_pack(cq_msghdr_t *h, unsigned char *data, uint32_t n); /* PACKED encoding */
uint32_t cq_am_token(void);
int cq_am_ready(void);

void cq_stop_threads(void); /* finalize: stop progress threads of live queues */
/* Complete (destroy != 0: and free) every live comm queue; the number found.
 * shmem_finalize runs it through cq_am_drain (queue_layer.c), before a barrier. */
int shmemi_queue_comm_flush_live(int destroy);
void cq_cache_free(void); /* finalize: free the chunks kept for later queues */

/* ---- node routing (SHMEMQ_QUEUE_ROUTE=node, cq_route.c) ----
 * A node-routed queue keeps one slot per op for each PE of this node and one for each
 * other node, not one per PE: fast.route maps a PE to its slot (cq_idx) and to the tag
 * its records' displacements carry (its rank on its node, SHMEMI_XB_TAG_SHIFT), so one
 * chunk collects the records for every PE of a node and leaves as one AM request, which
 * that node's server applies PE by PE. Such a chunk's pe is the node's server (cq_rep). */
static inline uint32_t cq_idx(shmem_queue_t q, int pe)
{
    return q->fast.route ? (uint32_t)q->fast.route[pe] : (uint32_t)pe;
}
/* The bits a record for pe carries in its displacement (0 unless pe is on another node
 * of a node-routed queue). */
static inline uint64_t cq_tag(shmem_queue_t q, int pe)
{
    return q->fast.route ? q->fast.route[pe] & ~(uint64_t)0xffffffffu : 0;
}
/* A node chunk (records for several PEs of another node): its slot index is past this
 * node's PEs. */
static inline int cq_chunk_tagged(shmem_queue_t q, const cq_chunk_t *c)
{
    return q->fast.route && cq_idx(q, c->pe) >= (uint32_t)q->n_local;
}
/* A message to pe, for the traffic figures: per slot index (a node-routed queue counts
 * a node as one peer, and tracks n_idx of them, not P). */
static inline void cq_traffic(shmem_queue_t q, int pe)
{
    shmemi_qtraffic_sent(&q->tr, q->n_idx, (int)cq_idx(q, pe));
}
/* The PE a chunk opened for pe is sent to: pe, or for a node chunk its node's server. */
int cq_rep(shmem_queue_t q, int pe);
/* The mode a queue on `path` created now takes (SHMEMQ_QUEUE_ROUTE): 1 node-routed, with the
 * table (built once per process), 0 direct (SHMEM_DEBUG says why when node was asked
 * for), -1 out of memory. */
int cq_route_setup(int path, int *n_idx, int *n_local, const uint64_t **table);
void cq_route_free(void); /* finalize */

/* ---- chunks (cq_push.c keeps the free lists) ---- */
/* Open chunks: linked when a slot opens one, unlinked when it leaves (cq_slot_issue). */
static inline void chunk_link_open(shmem_queue_t q, cq_chunk_t *c)
{
    c->prev = NULL;
    c->next = q->open_head;
    if (q->open_head)
        q->open_head->prev = c;
    q->open_head = c;
    q->n_open++;
}

static inline void chunk_unlink_open(shmem_queue_t q, cq_chunk_t *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        q->open_head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->next = c->prev = NULL;
    q->n_open--;
}

static inline void chunk_put(shmem_queue_t q, cq_chunk_t *c)
{
    c->next = q->free_chunks;
    q->free_chunks = c;
}

static inline cq_msghdr_t *chunk_hdr(cq_chunk_t *c)
{
    return (cq_msghdr_t *)c->msg;
}
static inline unsigned char *chunk_data(cq_chunk_t *c)
{
    return c->msg + sizeof(cq_msghdr_t);
}

/* Records an atomic chunk of this queue holds for elements of esize bytes: displacements
 * first, then the operands (which start this many 8-byte displacements in). */
static inline size_t chunk_records(shmem_queue_t q, size_t esize)
{
    return cq_plan_records(q->cbytes, esize);
}


/* ---- burst transports: the queue logic (cq_flush.c) hands each burst to one ----
 * node (cq_node.c): PEs of this node, applied here; complete on return */
/* The node transport reaches PE pe's region: its base mapped here, or NULL. Atomic
 * bursts follow the atomic domain; xport.h decides both (shmemi_xp_node_region). */
static inline unsigned char *cq_node_target(int pe, int win, int atomic)
{
    return shmemi_xp_node_region(win, pe, atomic);
}

int cq_node_burst(shmem_queue_t q, cq_slot_t *s, cq_chunk_t *c, unsigned char *base,
                  uint32_t n, uint32_t sent);
/* The displacements of a node burst: lowest, highest, and all OR-ed (alignment). One pass
 * in cq_node_burst serves both the summing and the mailbox (cq_owner.c). */
typedef struct {
    uint64_t lo, hi, low_bits;
} cq_range_t;

/* n adds of esize (4 or 8) bytes, aligned, within span words from displacement lo,
 * summed to one record per word (cq_node.c): displacements to out_disp, sums to
 * out_opnd; the records written, UINT32_MAX when the summing array is not there. */
/* Applies the held sums (cq_node.c): every issue-all (flush, timer, full queue) calls it. */
void cq_node_hold_drain(shmem_queue_t q);
/* Held sums for other PEs (cq_rhold.c): take the leaving ADD chunk c of n records into
 * them (1; the caller forgets the chunk), or 0; base: the target's region mapped here
 * (a node peer), else NULL; drain applies or sends what is held. */
int cq_rhold_take(shmem_queue_t q, cq_chunk_t *c, unsigned char *base, const uint64_t *disp,
                  const unsigned char *opnd, uint32_t n, int *rc);
int cq_rhold_drain(shmem_queue_t q);
void cq_rhold_free(shmem_queue_t q);
size_t cq_rhold_bytes(shmem_queue_t q); /* the windows' sums allocated (queue_usage.c) */
uint32_t shmemi_queue_comm_dense_compact(shmem_queue_t q, const uint64_t *disp,
                                         const unsigned char *opnd, uint32_t n, int esize,
                                         uint64_t lo, uint64_t span, uint64_t *out_disp,
                                         unsigned char *out_opnd);
/* rma (cq_rma.c): one MPI call per burst; complete at cq_rma_complete */
int cq_rma_burst(shmem_queue_t q, cq_chunk_t *c, uint32_t n);
/* PE pe has RMA operations of this queue to complete (every MPI call to it says so).
 * Marked per slot index: a node-routed queue completes a node through any one of its
 * PEs (AM completion is per server). */
static inline void cq_rma_note_pe(shmem_queue_t q, int pe)
{
    uint32_t i = cq_idx(q, pe);
    if (!q->rma_pe_dirty[i]) {
        q->rma_pe_dirty[i] = 1;
        q->rma_pes[q->n_rma_pes++] = pe;
    }
}
int cq_rma_complete(shmem_queue_t q);
void cq_rma_reclaim(shmem_queue_t q); /* origin buffers of issued bursts come back */
/* am (am.c): one message per burst, applied by the target; complete at a flush epoch */
int cq_am_burst(shmem_queue_t q, cq_chunk_t *c, uint32_t n);
int cq_am_epoch_start(shmem_queue_t q);
int cq_am_epoch_end(shmem_queue_t q, int wait);
int cq_am_complete(shmem_queue_t q);
void cq_am_reclaim(shmem_queue_t q);

/* ---- the queue logic, in three files ----
 * comm_queue.c  the queue object: handles, create/destroy/config, queries, threads
 * cq_push.c     chunks, slots and grants, appends, the push routines
 * cq_flush.c    bursts (to the transports above), flushes, shmem_queue_progress */
#define CQ_OPB(op) (1u << (op)) /* bit of a shmem_op_type_t in masks */
/* The ops (CQ_OPB bits) whose records go in op slot j: ADD and INC share one. */
static inline unsigned cq_slot_ops(int j)
{
    return j < CQ_S_ADD ? CQ_OPB(j) : j == CQ_S_ADD ? CQ_OPB(j) | CQ_OPB(j + 1) : CQ_OPB(j + 1);
}
/* The ops a queue of this op_type carries: all for SHMEM_OP_ANY, else exactly that one. */
static inline unsigned cq_opmask(int op_type)
{
    return op_type == SHMEM_OP_ANY ? 0xffu : CQ_OPB(op_type);
}
/* Op slots a queue carrying the ops of `opmask` has per target PE. */
static inline int cq_planes(unsigned opmask)
{
    int n = 0;
    for (int j = 0; j < CQ_NSLOTS; j++)
        n += (opmask & cq_slot_ops(j)) != 0;
    return n;
}

/* The public routines' bodies, for the queue layer's own callers (1.6 sessions,
 * session.c), which must not go through the profiled public names:
 * shmem_queue_comm_create/destroy (comm_queue.c), shmem_queue_progress and
 * shmem_queue_local_flush (cq_flush.c). Pushes: cq_push/cq_push_general. */
int cq_create(shmem_queue_t *queue, const shmem_queue_config_t *c);
int cq_destroy(shmem_queue_t q);
int cq_progress(shmem_queue_t q);
int cq_local_flush(shmem_queue_t q);

/* 0 if q is a live comm queue, else the error to return (comm_queue.c) */
int cq_check(shmem_queue_t q, const char *routine);
/* 1 if q is not a comm-queue header (so it may be a data queue), by the registry */
int cq_foreign(shmem_queue_t q);
static inline void cq_lock(shmem_queue_t q)
{
    if (q->shared)
        pthread_mutex_lock(&q->lock);
}
static inline void cq_unlock(shmem_queue_t q)
{
    if (q->shared)
        pthread_mutex_unlock(&q->lock);
}

/* MPI failures inside comm-queue routines: the routine returns SHMEM_QUEUE_ERR_MPI and
 * SHMEM_DEBUG prints the failing call with MPI's error string (the windows and the queue
 * communicator return errors, init.c/heap.c). Several calls in a row keep the first
 * failure (OR-ing the codes made a number MPI_Error_string cannot name). */
int cq_mpi_err(const char *call, int rc); /* report; SHMEM_QUEUE_ERR_MPI (comm_queue.c) */
typedef shmemi_xp_status_t cq_mpirc_t;
static inline void cq_mpi_note(cq_mpirc_t *st, int rc, const char *call)
{
    if (SHMEMI_UNLIKELY(rc != MPI_SUCCESS) && st->rc == MPI_SUCCESS) {
        st->rc = rc;
        st->call = call;
    }
}
static inline int cq_mpi_result(const cq_mpirc_t *st)
{
    return st->rc == MPI_SUCCESS ? 0 : cq_mpi_err(st->call, st->rc);
}

/* cq_push.c */
int cq_push_general(shmem_queue_t q, const char *routine, void *dest, const void *src,
                    size_t nelems, int pe, int op, int tidx); /* every push but the inline one */
void cq_cache_give(cq_chunk_t *c, size_t cbytes); /* a destroyed queue's chunk, kept or freed */
/* A queue's burst scratch: one zeroed anonymous mapping, returned to the system at
 * destroy beyond a small cache of released mappings (cq_scratch.c). */
void *cq_scratch_take(size_t bytes);
void cq_scratch_give(void *p, size_t bytes);
void cq_scratch_cache_free(void);
uint64_t cq_open_records(shmem_queue_t q);        /* records in open atomic chunks */
void cq_settle(shmem_queue_t q);                  /* give unused grants back */

/* cq_flush.c (the queue lock is held) */
int cq_slot_issue(shmem_queue_t q, cq_slot_t *s); /* the slot's open chunk leaves */
int cq_issue_all(shmem_queue_t q);                /* every open chunk leaves */
int cq_flush_all(shmem_queue_t q);                /* ... and completes */
/* The budget is spent and no chunk is free: issue the fullest open chunks, wait for one
 * in flight to come back (cq_budget.c); 0 when a chunk is free or may be allocated. */
int cq_budget_make_room(shmem_queue_t q);
int shmemi_queue_comm_budget_stats(shmem_queue_t q, uint64_t out[2]); /* tests */
void cq_timer(shmem_queue_t q);                   /* timed queues: issue on timeout */

/* Queries this many times with no burst between them turn counting on (comm_queue.h). */
#define CQ_COUNT_AFTER 4

/* Operations outstanding: granted records count once they are used. O(1) while
 * counting; a query also decides whether to start counting. */
static inline uint64_t cq_outstanding(shmem_queue_t q)
{
    if (SHMEMI_LIKELY(q->fast.counting)) {
        q->qcalls = 1; /* asked since the last burst: keep counting */
        return q->outstanding - q->granted + q->fast.open_ops;
    }
    uint64_t open = cq_open_records(q);
    if (++q->qcalls >= CQ_COUNT_AFTER) {
        q->fast.open_ops = open;
        q->fast.counting = 1;
    }
    return q->outstanding - q->granted + open;
}

/* Is there room for nops more operations? Settles the grants before saying no. */
static inline int cq_room_for(shmem_queue_t q, uint64_t nops)
{
    if (q->outstanding + nops <= q->max_elems)
        return 1;
    cq_settle(q);
    return q->outstanding + nops <= q->max_elems;
}


/* Symmetric address -> (region: 0 heap, 1 data; offset in it), the chunk's terms. */
static inline int cq_xlate(const void *addr, size_t len, int *win, uint64_t *disp)
{
    uintptr_t off;
    int r = shmemi_region(addr, len, &off);
    if (SHMEMI_UNLIKELY(r < 0))
        return -1;
    *win = r;
    *disp = (uint64_t)off;
    return 0;
}

/* The open chunk of (pe, slot); the slot must be one of an op the queue carries. */
static inline cq_slot_t *cq_slot(shmem_queue_t q, int pe, int slot)
{
    return &q->fast.plane[slot][cq_idx(q, pe)];
}

/* Bytes of records in the open chunk c (its slot holds the count of slotted records):
 * what the budget ranks chunks by and what usage reports as held. */
static inline size_t cq_open_fill(shmem_queue_t q, cq_chunk_t *c)
{
    const cq_msghdr_t *h = chunk_hdr(c);
    const cq_slot_t *s = cq_slot(q, c->pe, h->slot);
    int slotted = (h->slot != CQ_S_PUT && h->slot != CQ_S_GET) || h->tidx != SHMEMI_XT_BYTES;
    return slotted ? (size_t)s->n * (8 + h->esize) : c->used;
}

/* Ops (bit per shmem_op_type_t) that the push fast paths, inline and in the library,
 * may take: per element type, those of `mask` the type allows; 0 turns them off. */
static inline void cq_set_fast(struct shmem_queue_s *q, uint32_t mask)
{
    for (int t = 0; t < SHMEMI_XT_NTYPES; t++)
        q->fast.type_ops[t] = (uint8_t)(mask & cq_type_ops_rw[t]);
}

/* The push fast path: one element, an open chunk with room, no locking or timers.
 * Everything else (errors included) goes to cq_push_general, which re-checks. */
static inline int cq_push(shmem_queue_t q, const char *routine, void *dest, const void *src,
                          size_t nelems, int pe, int op, int tidx, size_t esize)
{
    /* Self targets are buffered too: applied as one batch later, the cache misses of
     * a large table overlap (measured: 2x at 1M counters). */
    if (SHMEMI_LIKELY(shmemq_cq_push_inline(q, tidx, esize, dest, src, nelems, pe,
                                            (shmem_op_type_t)op)))
        return 0; /* ops_pushed: counted when the chunk leaves */
    return cq_push_general(q, routine, dest, src, nelems, pe, op, tidx);
}

#endif
