/* cq_owner.h: owner-applied atomic bursts on the node (docs/queues_design.md, "Owner-applied
 * node bursts"). An atomic burst for a node peer is posted to a mailbox in that peer's
 * memory; the peer (the owner of the words) applies it when it is inside a library call,
 * or the origin applies it itself once it has waited a bounded time. A state word claimed
 * by compare-and-swap makes either side apply each burst exactly once. */
#ifndef SHMEMQ_CQ_OWNER_H
#define SHMEMQ_CQ_OWNER_H

#include "comm_queue.h"

/* SHMEMQ_OWNER_APPLY: 0 never, 1 every atomic slot, 2 (auto) the bursts it measured faster for */
int shmemi_queue_comm_owner_mode(void);
/* Queue create: make this PE's mailboxes servable (registers the progress hook once);
 * the queue's mode (SHMEMQ_OWNER_APPLY, 0 where there are no mailboxes). */
int shmemi_queue_comm_owner_enable(void);
/* Posts the slot's chunk (n pushed records, `sent` of them in the slot after combining,
 * their displacements' range r)
 * to PE c->pe's mailbox. 1: posted, the records stay outstanding until a reap sees them
 * applied; 0: not taken (no mailbox, too big, not this kind): apply it the old way. */
int shmemi_queue_comm_owner_post(shmem_queue_t q, cq_slot_t *s, cq_chunk_t *c,
                                 const cq_range_t *r, uint32_t n, uint32_t sent);
/* Counts q's applied bursts out of `outstanding`; wait != 0: until every burst q posted
 * is applied, claiming those the owner has left for the bounded wait. */
void shmemi_queue_comm_owner_reap(shmem_queue_t q, int wait);
/* Applies what node peers posted to this PE (the progress hook); bursts applied. */
int shmemi_queue_comm_owner_serve(void *arg);
/* This process's counts since it started: bursts posted, applied as owner, applied as origin after
 * the wait, not posted for want of a free mailbox (tests: test_commq_owner.cc). */
void shmemi_queue_comm_owner_stats(uint64_t out[4]);
/* 1 if atomic bursts of a queue on this PE to pe may be posted (after a queue create). */
int shmemi_queue_comm_owner_reaches(int pe);
/* Finalize: the hook goes, the tables are freed (a later shmem_init starts afresh). */
void shmemi_queue_comm_owner_fini(void);

#endif
