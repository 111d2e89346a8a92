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
    AM_BGET     /* gets: the records {disp, len, local address}; reply: the payloads packed */
};

typedef struct {
    uint8_t kind, region, size, op; /* region 0 heap, 1 data; op shmemi_xop_t */
    uint8_t amokind, pad[3];        /* SHMEMI_AMO_* */
    int32_t pe;                     /* target, world PE (on the server's node) */
    int32_t tag;                    /* reply tag, 0: no reply */
    uint64_t off;                   /* offset in the region */
    uint64_t len;                   /* PUT/GET bytes; BURST records */
    uint64_t value, cond;
} am_req_t;

/* State both files share (xport_am.c defines it). */
typedef struct {
    MPI_Comm comm;
    int *server;  /* world PE -> world rank of its node's server */
    int is_server;
    char why[160]; /* what shmemi_am_describe says */
} am_state_t;
extern am_state_t shmemi_am;

#endif /* SHMEMI_XPORT_AM_PROTO_H */
