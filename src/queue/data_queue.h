/*
 * data_queue.h: data queues (collective over a team, exchanged with MPI_Alltoallv).
 *
 * The handle (shmem_queue_t) of a data queue points at a struct shmemi_dataq whose
 * first member is a uint32_t magic: SHMEMQ_DATAQ_LIVE, _ROUTED or _SHARED while the
 * queue is live (include/shmemq/dataq.h). The
 * comm-queue code owns struct shmem_queue_s and the public shmem_query_attr /
 * shmem_query_size; it dispatches to shmemi_queue_data_query_attr/_size when the first
 * uint32 of the handle says so (shmemi_is_dataq).
 *
 * Layout (docs/data_queues.md): per peer `room` bytes of outgoing and `room` bytes of
 * incoming space, each kind one contiguous peer-major array (buf_out, buf_in), so one
 * MPI_Alltoallv moves bytes straight from one into the other. The PE's own pair of
 * rooms is the exception: MPI never moves it. When its incoming room is empty at a
 * flush the two rooms trade places (h.out_at[me] and h.in_at[me] swap, nothing is
 * copied), else the flush copies what fits itself. So either of the PE's own rooms
 * may lie in either array; the peers' rooms stay at buf + p*room.
 *
 * Files: data_queue.c (the API and the list of live queues), dq_flush.c (the flush
 * engine), dq_nbx.c (its sparse exchange, SHMEMQ_DATAQ_EXCHANGE=nbx), dq_size.c (the default room), dq_bufcache.c (exchange buffers kept for reuse).
 * Names (docs/architecture.md, "Names"): dq_ for what has internal linkage (statics,
 * and the static inlines here); shmemi_queue_data_ for every function or variable with
 * external linkage, whether the other data-queue files or other layers call it: the
 * library exports every non-static symbol, and shmemi_queue_ is the queue layer's part
 * of the library's reserved prefix. Types and macros keep the module's own name
 * (struct shmemi_dataq, SHMEMI_DATAQ_*).
 */
#ifndef SHMEMI_DATA_QUEUE_H
#define SHMEMI_DATA_QUEUE_H

#include "queue.h"
#include "queue_usage.h"
#include <pthread.h>

#define SHMEMI_DATAQ_DEAD 0x64656164u  /* 'dead': destroyed (until the memory is reused) */

/* Data-queue ids have the top bit set so they never equal a comm-queue id. */
#define SHMEMI_DATAQ_ID_BIT ((uint64_t)1 << 63)

/* How the payload exchange is issued (SHMEMQ_DATAQ_XFER; tests force each one). */
enum shmemi_dataq_xfer {
    SHMEMI_DATAQ_XFER_AUTO = 0, /* alltoallv when counts fit in int, else _c or rounds */
    SHMEMI_DATAQ_XFER_V = 1,    /* MPI_Ialltoallv (int counts and displacements) */
    SHMEMI_DATAQ_XFER_C = 2,    /* MPI_Ialltoallv_c (MPI >= 4) */
    SHMEMI_DATAQ_XFER_ROUNDS = 3 /* MPI_Ialltoallw rounds of at most `chunk` bytes per pair */
};

/* Data-queue mode (SHMEMQ_DATAQ_ROUTE, agreed at create; dq_route.h). */
enum shmemi_dataq_route_mode {
    SHMEMI_DATAQ_ROUTE_AUTO = 0, /* 2hop or 3hop where bench/simulate predicts they win
                                    (dq_route.h) */
    SHMEMI_DATAQ_ROUTE_DIRECT = 1,
    SHMEMI_DATAQ_ROUTE_2HOP = 2,
    SHMEMI_DATAQ_ROUTE_3HOP = 3  /* dq_plan.h, "three hops" */
};

struct shmemi_dq_route;
struct shmemi_dq_nbx;

/* Phases of a flush, shared by the blocking global flush and the background one. */
enum shmemi_dataq_phase {
    SHMEMI_DATAQ_IDLE = 0,
    SHMEMI_DATAQ_COUNTS, /* Ialltoall of {outgoing bytes, free incoming bytes} per peer */
    SHMEMI_DATAQ_AGREE,  /* Iallreduce {overflow, rounds} (+ Ialltoallv when not in rounds) */
    SHMEMI_DATAQ_MOVE,   /* rounds mode: one Ialltoallw per round */
    SHMEMI_DATAQ_NBX     /* sparse exchange in flight (dq_nbx.c) */
};

/* the inline pop (shmemq/dataq.h) reads h.phase == 0 as "no flush in flight" */
_Static_assert(SHMEMI_DATAQ_IDLE == 0, "inline pop assumes IDLE is 0");

struct shmemi_dataq {
    /* MUST stay first: its magic is the handle's first uint32 (the comm-queue dispatch
     * reads it), and the inline push/pop of shmemq/dataq.h read these fields. */
    struct shmemq_dataq_hot h;
    uint32_t shared; /* SHMEM_QUEUE_SHARED: lock around every access */
    uint64_t queue_id;
    struct shmemq_team *team; /* the team given at create (progress/destroy check it) */
    MPI_Comm comm;            /* dup of team->comm: every flush collective */
    MPI_Comm ctrl;            /* another dup: catch-up agreement (see dataq_sync) */
    int me;
    int xfer;    /* enum shmemi_dataq_xfer resolved at create */
    size_t chunk; /* rounds mode: most bytes one pair moves in one round */
    char *buf_out, *buf_in; /* the two arrays of rooms (see the layout above); NULL when routed */
    struct shmemi_dq_route *rt; /* routed mode (dq_route.h), NULL in direct mode */
    struct shmemi_dq_nbx *nbx;  /* direct mode's sparse exchange (dq_nbx.h), else NULL */

    /* the flush in flight (background or blocking); h.phase says which step */
    int bg;                  /* started by shmem_queue_data_progress */
    uint64_t started;        /* flushes started on comm (catch-up agreement) */
    uint64_t *xmine;         /* 2*npes: per peer {outgoing bytes, free incoming bytes} */
    uint64_t *xpeer;         /* 2*npes: the same, from each peer about me */
    uint64_t agree_in[2], agree_out[2]; /* {overflow, rounds} */
    size_t *send, *recv;     /* bytes of this flush per peer */
    size_t *rdisp;           /* byte offset in in_at[p] where this flush lands */
    int self_swap;           /* this flush hands the own outgoing room over whole */
    void *vbuf;              /* count/displacement arrays for the MPI call */
    uint64_t round, nrounds;
    MPI_Request req[2];
    int nreq;
    int last_rc;             /* result of the last completed flush */
    int bg_done_rc;          /* a background flush finished: its status, reported once */
    int bg_done;

    pthread_mutex_t lock;
    shmemx_queue_stats_t stats;
    shmemi_qtraffic_t tr; /* messages, bytes and peers per flush (queue_usage.h) */
};

/* ---- locking (SHMEM_QUEUE_SHARED only) ---- */
static inline void dq_lock(struct shmemi_dataq *q)
{
    if (q->shared)
        pthread_mutex_lock(&q->lock);
}
static inline void dq_unlock(struct shmemi_dataq *q)
{
    if (q->shared)
        pthread_mutex_unlock(&q->lock);
}

/* ---- the flush engine (dq_flush.c), called by the API in data_queue.c ---- */

/* Snapshot the rooms and start a flush (bg: started by shmem_queue_data_progress). */
int shmemi_queue_data_flush_start(struct shmemi_dataq *q, int bg);
/* Advance the flush in flight. block: wait for each step (progressing everything
 * else meanwhile); otherwise test once per step. Returns 1 when idle, 0 when still in
 * flight, or an error (the flush is abandoned: the queue is then unusable). */
int shmemi_queue_data_flush_step(struct shmemi_dataq *q, int block);

/* Which collective a shmemi_queue_data_sync belongs to (finalize's release counts as a destroy). */
enum { SHMEMI_DATAQ_SYNC_FLUSH = 1, SHMEMI_DATAQ_SYNC_DESTROY = 2 };
/* Agree with every PE of the team on arguments, routine (kind) and flush count, then
 * catch up to the most flushes any PE started (`mine`: this PE's wish). ARG on every PE,
 * nothing changed, when one PE was bad or the PEs are in different routines. */
int shmemi_queue_data_sync(struct shmemi_dataq *q, uint64_t mine, const char *routine, int kind,
                      int bad);
/* The routine name shmem_finalize's release passes to shmemi_queue_data_sync, compared by
 * address: a PE in finalize that meets peers in a global flush ends the job. */
extern const char shmemi_queue_data_finalize_routine[];

/* data_queue.c, for create (dq_create.c): list a live queue for finalize (0, or -1 when
 * memory is short), and free a queue and its arrays (the exchange buffers, bufbytes each,
 * go to dq_bufcache.c). */
int shmemi_queue_data_list(struct shmemi_dataq *q);
void shmemi_queue_data_free_memory(struct shmemi_dataq *q, size_t bufbytes);

/* dq_bufcache.c: exchange buffers kept from destroyed queues for the next of one size.
 * take: a kept buffer of exactly `bytes`, else malloc; give: keep p, or free it. */
void *shmemi_queue_data_buf_take(size_t bytes);
void shmemi_queue_data_buf_give(void *p, size_t bytes);
void shmemi_queue_data_buf_cache_free(void); /* finalize (both caches) */
/* The routed queues' grown buffers (dq_route.h): the smallest kept one of at least min
 * bytes (its size in *bytes), or NULL; give keeps p when it grew (else frees it). */
void *shmemi_queue_data_rbuf_take(size_t min, size_t *bytes);
void shmemi_queue_data_rbuf_give(void *p, size_t bytes);
/* Tests: kept buffers taken so far (test_dataq_route.cc). */
extern uint64_t shmemi_queue_data_rbuf_adopted;

/* Dispatch targets for shmem_query_attr / shmem_query_size (comm-queue code). The
 * handle is known to be a live data queue (shmemi_is_dataq); attr/size are checked here. */
int shmemi_queue_data_query_attr(shmem_queue_t queue, shmem_queue_attr_t *attr);
int shmemi_queue_data_query_size(shmem_queue_t queue, size_t *size);
int shmemi_queue_data_stats(shmem_queue_t queue, shmemx_queue_stats_t *stats);

/* queue_usage.c: a flush's exchange completed (before dq_flush_finish applies it):
 * count its per-peer transfers, bytes and peers. */
void shmemi_queue_data_count_flush(struct shmemi_dataq *q);

/* dq_size.c: bytes per peer when the config gives no max_bytes (whole elements, from the
 * cache size). */
size_t shmemi_queue_data_default_room(size_t elem, int npes);
/* shmemq_info: the default room per peer and the cache figure behind it, one line. */
void shmemi_queue_data_describe(char *buf, size_t n, int npes);

/* 1 if the handle's first uint32 says "live data queue" (EXCLUSIVE, routed or SHARED). */
static inline int shmemi_is_dataq(shmem_queue_t queue)
{
    if (queue == NULL)
        return 0;
    uint32_t m = *(const uint32_t *)(const void *)queue;
    return m == SHMEMQ_DATAQ_LIVE || m == SHMEMQ_DATAQ_LIVE_ROUTED ||
           m == SHMEMQ_DATAQ_LIVE_SHARED;
}

#endif /* SHMEMI_DATA_QUEUE_H */
