/* xport_am_proto.h: the AM transport's wire format and shared state (xport_am.h).
 *
 * One communicator (a dup of the world, am.comm). Requests go to a server with tag
 * AM_TAG_REQ; a server applies them in arrival order, and MPI does not let two messages
 * of one sender on one communicator and tag overtake each other, so a FLUSH answered by
 * the server means every earlier request of that origin is applied. A request that wants
 * an answer names a reply tag (1..AM_NSLOTS), one per outstanding reply at the origin,
 * whose receive the origin posts before it sends the request: the server's reply always
 * finds its receive, and never waits for the origin. */
#ifndef SHMEMI_XPORT_AM_PROTO_H
#define SHMEMI_XPORT_AM_PROTO_H

#include "xport.h"
#include <pthread.h>
#include <stdint.h>

enum { AM_TAG_REQ = 0 };
#define AM_NSLOTS 2048 /* replies outstanding at one origin (tags 1..AM_NSLOTS) */
/* Puts and gets travel in pieces of at most this many bytes: a bounded buffer at the
 * server, and a large transfer is a pipeline of messages rather than one. */
#define AM_CHUNK ((size_t)64 << 10)
/* The comm queue's get bursts in flight at one origin (each holds a reply slot and a
 * buffer of its values until its reply is scattered): a bound on memory and on the
 * server's backlog, deep enough to keep several round trips overlapped. */
#define AM_GET_BURSTS 32

enum {
    AM_AMO = 1, /* one atomic: size, amokind, op, value, cond; reply: the old value */
    AM_PUT,     /* len payload bytes follow the header */
    AM_GET,     /* reply: len bytes */
    AM_FLUSH,   /* reply: empty, once every earlier request of the origin is applied */
    AM_BURST,   /* the comm queue's burst: len displacements, then len operands of size */
    AM_PUTS,    /* strided put: value blocks of len bytes packed, the k-th to off + k * cond
                   (cond an int64 stride) */
    /* The comm queue's put and get bursts (shmemi_xp_burst_t), len records each, one
     * request per burst; gets answer with the bytes of every record, in record order. */
    AM_BTPUT,   /* typed puts: len displacements, then len values of size bytes */
    AM_BPUT,    /* puts: the record stream {disp, len, payload padded to 8} */
    AM_BTGET,   /* typed gets: len displacements; reply: len values of size bytes */
    AM_BGET,    /* gets: the records {disp, len, local address}; reply: the payloads packed */
    AM_BURSTP,  /* AM_BURST with one operand for all (INC, a histogram's adds of 1) and
                   displacements below 4 GiB: len uint32 displacements, then the operand */
    AM_BTPUTP,  /* AM_BTPUT, AM_BTGET with displacements below 4 GiB: len uint32 */
    AM_BTGETP   /* displacements, then (puts) len values of size bytes */
};

typedef struct {
    uint8_t kind, region, size, op; /* region 0 heap, 1 data; op shmemi_xop_t */
    uint8_t amokind;                /* SHMEMI_AMO_* */
    uint8_t tagged;                 /* bursts: each displacement carries its target's rank
                                       on the server's node (shmemi_xp_burst_t.tagged) */
    uint8_t pad[2];
    int32_t pe;                     /* target, world PE (on the server's node) */
    int32_t tag;                    /* reply tag, 0: no reply */
    uint64_t off;                   /* offset in the region */
    uint64_t len;                   /* PUT/GET bytes; BURST records */
    uint64_t value, cond;
} am_req_t;

/* Nonblocking MPI operations in flight, each with the buffer it owns: the origin's request
 * sends and get bursts (xport_am.c), the server's replies (xport_am_serve.c). One helper
 * for the three lists: grown on demand, reaped when done. */
typedef struct {
    MPI_Request req;
    void *buf;
} am_pend_t;
typedef struct {
    am_pend_t *v;
    size_t n, cap;
} am_pends_t;

/* Reap the finished entries (all: wait for every one with wait, which may run MPI only):
 * finish(buf) each (free it; or scatter a reply, then free) and drop it, keeping the
 * order of the rest. A failed test ends the job naming routine. Returns the count. */
static inline size_t am_pends_reap(am_pends_t *p, int all, void (*wait)(MPI_Request *),
                                   void (*finish)(void *), const char *routine)
{
    size_t k = 0, fin = 0;
    for (size_t i = 0; i < p->n; i++) {
        int done = 1;
        if (all) {
            wait(&p->v[i].req);
        } else {
            int rc = MPI_Test(&p->v[i].req, &done, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                shmemi_mpi_fail(routine, "MPI_Test", rc);
        }
        if (done) {
            finish(p->v[i].buf);
            fin++;
        } else {
            p->v[k++] = p->v[i];
        }
    }
    p->n = k;
    return fin;
}

/* Room for one more entry, finished ones reaped first: the caller starts its operation in
 * the returned entry's req, sets buf and then counts it (p->n++); or leaves it uncounted
 * if the start failed. */
static inline am_pend_t *am_pends_room(am_pends_t *p, void (*finish)(void *),
                                       const char *routine)
{
    if (p->n == p->cap) {
        am_pends_reap(p, 0, NULL, finish, routine);
        if (p->n == p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 64;
            am_pend_t *v = realloc(p->v, cap * sizeof *v);
            if (!v)
                shmemi_fatal(routine, "out of memory");
            p->v = v;
            p->cap = cap;
        }
    }
    return &p->v[p->n];
}

/* Wait for every entry, finish it, and free the list. */
static inline void am_pends_fini(am_pends_t *p, void (*wait)(MPI_Request *),
                                 void (*finish)(void *), const char *routine)
{
    am_pends_reap(p, 1, wait, finish, routine);
    free(p->v);
    p->v = NULL;
    p->n = p->cap = 0;
}

/* State the AM files share (xport_am_init.c defines it). */
typedef struct {
    MPI_Comm comm;
    int *server;  /* world PE -> world rank of its node's server */
    int *lrank;   /* world PE -> its rank on its node (node-routed bursts' tags) */
    int lrank_max; /* the largest of them */
    int is_server;
    char why[160]; /* what shmemi_am_describe says */
} am_state_t;
extern am_state_t shmemi_am;

/* The origin state of xport_am.c: set up once the choice is made, torn down at fini (every
 * send and get burst left is waited for). */
void shmemi_am_origin_init(void);
void shmemi_am_origin_fini(void);

/* The origin side (xport_am.c) for the combining (xport_am_comb.c): its lock; a send of a
 * malloc'd request (owned from then on; lock held); a request buffer; the flow control
 * (lock not held). */
void shmemi_am_lock(void);
int shmemi_am_trylock(void); /* 0: taken */
void shmemi_am_unlock(void);
int shmemi_am_send_owned(int server, const am_req_t *h, unsigned char *buf, size_t n);
unsigned char *shmemi_am_req_buf(size_t n);
void shmemi_am_throttle(int server);
/* For the comm queue's bursts (xport_am_burst.c): a request copied from its parts (as
 * shmemi_am_req_buf, malloc'd); a get burst sent, its reply scattered to the local
 * addresses by the queue's completion (shmemi_am_burst); the flow control without the
 * progress hooks. */
unsigned char *shmemi_am_req_copy(const am_req_t *h, const void *a, size_t na, const void *b,
                                  size_t nb, size_t *n);
/* A request of header h, disp[0..n) narrowed to uint32, then nt tail bytes (malloc'd). */
unsigned char *shmemi_am_req_narrow(const am_req_t *h, const uint64_t *disp, uint32_t n,
                                    const void *tail, size_t nt, size_t *len);
/* The same for a tagged burst whose offsets are below 4 GiB: n uint32 offsets, then the n
 * tags as uint16 node ranks, then the tail (6 bytes a record instead of 8 or 16). */
unsigned char *shmemi_am_req_narrow_tagged(const am_req_t *h, const uint64_t *disp, uint32_t n,
                                           const void *tail, size_t nt, size_t *len);
size_t shmemi_am_burst_get(const shmemi_xp_burst_t *b, am_req_t *h, shmemi_xp_status_t *st);
void shmemi_am_burst_throttle(int server);

/* The first failure of a burst is noted in st: the queue returns SHMEM_QUEUE_ERR_MPI. */
static inline void am_burst_note(shmemi_xp_status_t *st, int rc, const char *call)
{
    if (rc != MPI_SUCCESS && st->rc == 0) {
        st->rc = rc;
        st->call = call;
    }
}

/* The combining: hold a non-fetching atomic (0: not held, send it as a request); before a
 * request h to server, send what must precede it; send everything held for server's PEs
 * (all: -1). Lock held for _before and _send, not for _add. */
int shmemi_am_comb_add(const shmemi_target_t *t, size_t size, shmemi_xop_t op, const void *value);
void shmemi_am_comb_before(int server, const am_req_t *h);
void shmemi_am_comb_send(int server);
void shmemi_am_comb_init(void);
void shmemi_am_comb_fini(void);

#endif /* SHMEMI_XPORT_AM_PROTO_H */
