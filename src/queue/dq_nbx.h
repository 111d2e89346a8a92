/*
 * dq_nbx.h: the sparse exchange of direct-mode data-queue flushes (dq_nbx.c,
 * docs/data_queues.md "Sparse flushes (NBX)"), chosen at create by
 * SHMEMQ_DATAQ_EXCHANGE. Its state grows with the peers a flush talks to (destinations
 * with data, sources that sent), never with the team's size.
 */
#ifndef SHMEMI_DQ_NBX_H
#define SHMEMI_DQ_NBX_H

#include "data_queue.h"

/* One destination with data in the flush in flight. */
struct dq_nbx_send {
    int pe;
    int acked;       /* its acknowledgement arrived */
    size_t len;      /* bytes sent: the whole outgoing room at the start */
    size_t accepted; /* bytes the receiver took (from the acknowledgement) */
};

/* One message received (or being received) in the flush in flight. Kept at a stable
 * address: the acknowledgement's Isend reads `ack` until it completes. */
struct dq_nbx_recv {
    int pe;
    int state;     /* 0 receiving, 1 acknowledged (ack Isend in flight), 2 done */
    size_t off;    /* where the accepted bytes land in the incoming room */
    size_t accept; /* bytes taken: min(message, free room) */
    char *tmp;     /* the whole message when it does not fit (overflow), else NULL */
    uint64_t ack;
    MPI_Request req, ack_req;
};

struct shmemi_dq_nbx {
    struct dq_nbx_send *s; /* ascending pe (binary search on acknowledgements) */
    MPI_Request *sreq;     /* the sends' requests, parallel to s */
    int ns, scap;
    int sends_done;        /* sends completed, tested in order */
    int acks_left;         /* acknowledgements still to come */
    struct dq_nbx_recv **r; /* entries reused across flushes */
    int nr, rcap, r_open;  /* r_open: entries not yet done */
    int tag;               /* data tag of the flush in flight; acks use tag + 1 */
    int in_coll;           /* entered the closing Iallreduce */
    uint64_t ovf_in, ovf_out;
    MPI_Request coll;
    size_t self_bytes;     /* moved to the own incoming room (for the usage counts) */
    int busy;              /* one poll at a time (the progress hook, or a thread) */
    int err;               /* an error met inside the progress hook, reported once */
    pthread_t owner;       /* EXCLUSIVE queues: the thread that started the flush */
    struct shmemi_dataq *prev, *next; /* the NBX queues the progress hook serves */
    int linked;
};

/* The next capacity of a list (sends, receives): from 8, doubling. One rule for the
 * lists (dq_nbx.c) and the memory model (queue_usage.c), so the two agree. */
static inline uint64_t dq_nbx_next_cap(uint64_t cap)
{
    return cap ? 2 * cap : 8;
}

/* Exchange choice (SHMEMQ_DATAQ_EXCHANGE), agreed at create. */
enum shmemi_dataq_exchange {
    SHMEMI_DATAQ_EXCH_AUTO = 0,
    SHMEMI_DATAQ_EXCH_ALLTOALLV = 1,
    SHMEMI_DATAQ_EXCH_NBX = 2
};

/* Whether auto picks NBX for a team of npes PEs with rooms of at most maxroom bytes
 * (the same answer on every PE: both inputs are agreed). */
int shmemi_queue_data_nbx_auto(int npes, size_t maxroom);
/* Whether NBX can run with rooms of maxroom bytes (one message per room: int count). */
int shmemi_queue_data_nbx_fits(size_t maxroom);
/* Before the create agreement (so a failure is agreed): q->nbx, and the progress hook
 * registered once for all NBX queues. 0 or NOMEM. */
int shmemi_queue_data_nbx_alloc(struct shmemi_dataq *q);
/* The agreed exchange is NBX: the hook serves q's flushes from now on. */
void shmemi_queue_data_nbx_enable(struct shmemi_dataq *q);
/* Stop serving q and free its NBX state (q is idle); q->nbx becomes NULL. */
void shmemi_queue_data_nbx_free(struct shmemi_dataq *q);
/* Bytes of the exchange's lists now (shmemx_queue_usage's scratch). */
uint64_t shmemi_queue_data_nbx_scratch(struct shmemi_dataq *q);
/* shmem_finalize, after the last queue: the hook goes. */
void shmemi_queue_data_nbx_fini(void);
/* Start a flush (bg: by shmem_queue_data_progress). */
int shmemi_queue_data_nbx_start(struct shmemi_dataq *q, int bg);
/* Advance the flush in flight: block until it completes, or one pass. Returns 1 when
 * idle, 0 when still in flight, or an error. */
int shmemi_queue_data_nbx_step(struct shmemi_dataq *q, int block);

#endif /* SHMEMI_DQ_NBX_H */
