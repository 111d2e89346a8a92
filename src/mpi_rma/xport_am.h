/* xport_am.h: the AM transport (xport.h): operations on a PE of another node sent as
 * messages to the SERVER of the target's node (its node leader, the lowest world rank of
 * the node), which applies them into the target's memory through the node transport
 * (loads, stores, CPU atomics on the mapping node.c made). So every atomic on a node's
 * memory is a CPU atomic of that node: one atomic domain per node, whichever PE issued it.
 *
 * Files: xport_am.c (origin side: requests, replies, completion, the comm queue's
 * bursts), xport_am_serve.c (the server: receive and apply, registered as a thread-safe
 * progress hook, so the node's progress agent runs it while the PEs compute),
 * xport_am_init.c (the choice at init, set-up, shutdown), xport_am_proto.h (the wire
 * format and what those files share).
 * docs/design.md, "Off the node: the atomic domain and the AM transport", has the why.
 *
 * Taken (shmemi.offnode_am, decided once at init by shmemi_am_init, the same on every PE)
 * when the job spans nodes, both symmetric regions are node-mapped and SHMEMQ_OFFNODE is
 * am (the default). Included by xport.h (include that, not this). */
#ifndef SHMEMI_XPORT_AM_H
#define SHMEMI_XPORT_AM_H

#include "shmemi.h"
#include "xport_types.h"

/* shmemi_am_init, _fini and _describe (init.c, shmemq_info) are declared in shmemi.h. */

/* Operations (t->local is NULL: the target is off the node; t->region, t->off locate the
 * bytes). Completion modes and result rules are xport.h's. */
void shmemi_am_put(const char *routine, const shmemi_target_t *t, const void *src, size_t n,
                   int done);
void shmemi_am_get(const char *routine, const shmemi_target_t *t, void *dest, size_t n, int done);
void shmemi_am_strided(const char *routine, const shmemi_target_t *t, int is_get, char *local,
                       ptrdiff_t lstride, size_t roff, ptrdiff_t rstride, size_t blk, size_t n);
void shmemi_am_fetch_op(const char *routine, const shmemi_target_t *t, size_t size,
                        shmemi_xop_t op, const void *value, void *result);
void shmemi_am_cas(const char *routine, const shmemi_target_t *t, size_t size, const void *value,
                   const void *cond, void *result);
/* kind SHMEMI_AMO_*: operands copied; result (FOP, CAS) valid after the next quiet. */
void shmemi_am_amo_nbi(const char *routine, const shmemi_target_t *t, size_t size, int kind,
                       shmemi_xop_t op, const void *value, const void *cond, void *result);
/* As shmemi_am_amo_nbi, for shmem_atomic_*: a non-fetching one may be held a while and
 * combined with others to the same PE into one request (xport_am_comb.c). */
void shmemi_am_amo_comb(const char *routine, const shmemi_target_t *t, size_t size, int kind,
                        shmemi_xop_t op, const void *value, const void *cond, void *result);
/* Non-fetching atomics combined so far, and the requests they went in (tests). */
void shmemi_am_comb_stats(uint64_t out[2]);
/* Tests: at most cap PEs' atomics held at once (default and most: 16). */
void shmemi_am_comb_cap(int cap);
/* Everything this PE sent through AM is applied and every result is in (all contexts:
 * AM traffic is not per context; conservative, and cheap when nothing is outstanding). */
void shmemi_am_quiet(void);
/* Everything sent to world PE pe's server is applied (and every nbi result is in). */
void shmemi_am_quiet_pe(int pe);

/* The comm queue's bursts to a PE off the node (xport.h, shmemi_xp_burst), one request
 * each, and nothing of the caller's is read after return (atomics and puts are copied into
 * the request, a get's local addresses kept with its reply buffer). Atomics and puts
 * complete at shmemi_am_burst_quiet(b->pe); gets do not wait for their reply (at most
 * AM_GET_BURSTS in flight): every value is at its local address by the next
 * shmemi_am_burst_quiet (of any pe). Returns the data bytes moved (0 and st noted if the
 * send failed). */
size_t shmemi_am_burst(const shmemi_xp_burst_t *b, shmemi_xp_status_t *st);
/* The comm queue's one put or get too big for a chunk (len bytes at offset off of PE pe's
 * region): a put is copied out on return, a get lands by shmemi_am_burst_quiet(pe). */
void shmemi_am_burst_bytes(int is_get, void *buf, size_t len, int pe, int region, uint64_t off);
/* The queue's completion of its bursts to PE pe (all: pe < 0): as shmemi_am_quiet_pe, but
 * waiting runs no progress hook (the queue is in the middle of its own state changes). */
void shmemi_am_burst_quiet(int pe);

/* Where a PE's node is served (with shmemi.offnode_am): the world rank of its node's
 * server and its own rank on its node; the comm queue's node routing (cq_route.c) is
 * built from them. */
int shmemi_am_server_of(int pe);
int shmemi_am_lrank_of(int pe);
int shmemi_am_lrank_max(void); /* the largest node rank of the job (a node's PEs less 1) */

/* ---- shared by the xport_am*.c files ---- */
int shmemi_am_serve(void *arg); /* the progress hook (requests applied); also called by waiting origins */
int shmemi_am_serve_init(void);  /* after the communicator exists, on servers */
void shmemi_am_serve_fini(void);

#endif /* SHMEMI_XPORT_AM_H */
