/*
 * shmemq/dataq.h: inline fast paths of data-queue push and pop (included by shmemx.h).
 *
 * shmem_queue_data_push / shmem_queue_data_pop are per-element calls in typical use
 * (bucketing, index-gather), so the common case is inlined into the caller: a handle
 * check, a bounds check and a memcpy of a size the compiler knows for 4, 8 and 16
 * bytes. A routed queue's push (SHMEMQ_DATAQ_ROUTE) is inlined too: a probe of its
 * destination table and an append to a porter's buffer (struct shmemq_dataq_rhot).
 * Everything else (errors, FULL, SHARED queues, a pop spanning sources, a routed
 * queue's pop, a destination new since the last flush, a buffer to grow) calls the
 * library function, which does the full checks. The library functions stay
 * exported (ABI); define SHMEMQ_NO_INLINE before including shmemx.h to call them
 * directly, or call them as (shmem_queue_data_push)(...).
 *
 * struct shmemq_dataq_hot is the first member of the library's data-queue struct. Its
 * layout is part of the ABI of this library version: code compiled with the inline
 * paths reads it. Do not write to it.
 */
#ifndef SHMEMQ_DATAQ_H
#define SHMEMQ_DATAQ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* First uint32 of a live data queue: EXCLUSIVE (the inline paths may use it) or SHARED
 * (every access takes the queue's lock: the inline paths call the library). Change
 * both values whenever struct shmemq_dataq_hot changes: a program compiled against
 * the old layout then finds no match and calls the library for everything. */
#define SHMEMQ_DATAQ_LIVE 0x44415433u        /* 'DAT3' */
#define SHMEMQ_DATAQ_LIVE_SHARED 0x44415333u /* 'DAS3' */
#define SHMEMQ_DATAQ_LIVE_ROUTED 0x44415233u /* 'DAR3': routed, EXCLUSIVE: inline push */

/* A routed queue's push state (src/queue/dq_route.h has the protocol). A push for
 * destination d finds d's entry in a hash table of the destinations pushed to since the
 * last flush and appends a run to the buffer of d's porter: an 8-byte header {entry,
 * bytes} and the bytes, or only the bytes when that buffer's last run is the entry's. */
struct shmemq_dataq_rbuf {
    char *p;
    size_t len, cap;
};
struct shmemq_dataq_rent {
    uint32_t d, porter; /* destination, and its porter (node-local rank) */
    size_t len, cur;    /* bytes pushed since the last flush; the flush's cursor */
};
struct shmemq_dataq_rhot {
    uint64_t *slot;        /* mask + 1 slots, (d + 1) << 32 | entry; NULL: no entry yet */
    uint32_t mask;
    uint32_t last_d, last_i; /* the last push's destination and entry (UINT32_MAX: none) */
    struct shmemq_dataq_rent *ent;    /* the entries */
    struct shmemq_dataq_rbuf *porter; /* one buffer per porter */
    size_t *plast;         /* per porter: its last run's header offset, or SIZE_MAX */
    size_t out_total;      /* sum of the entries' len */
};

struct shmemq_dataq_hot {
    uint32_t magic;     /* SHMEMQ_DATAQ_LIVE(_SHARED, _ROUTED) while live; MUST stay first */
    int npes;
    int phase;          /* != 0: a flush is in flight (its exchange lands behind the FIFOs) */
    int any_from;       /* every source below it has nothing to pop */
    size_t elem;        /* bytes per element */
    size_t room;        /* bytes per peer, outgoing and incoming; a multiple of elem */
    size_t room_elems;  /* room / elem */
    char **out_at;      /* out_at[p]: out_len[p] bytes pushed for team PE p */
    char **in_at;       /* in_at[p] + in_head[p]: in_len[p] bytes arrived from p */
    size_t *out_len;
    size_t *in_head;
    size_t *in_len;
    struct shmemq_dataq_rhot *rt; /* routed: the push state (the arrays above NULL) */
};

#if defined(__GNUC__)
#define SHMEMQ_DQ_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define SHMEMQ_DQ_LIKELY(x) (x)
#endif

/* memcpy with the size known at compile time for the common element sizes. */
static inline void shmemq_dataq_copy(void *d, const void *s, size_t n)
{
#if defined(__GNUC__)
    /* Hide the objects from the compiler: otherwise it warns that the 8- and 16-byte
     * cases overrun a 4-byte source, cases that never run for it. Emits no code. */
    __asm__("" : "+r"(d), "+r"(s));
#endif
    switch (n) {
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, n); break;
    }
}

/* The handle as hot fields if the inline paths may use it, else NULL. */
static inline struct shmemq_dataq_hot *shmemq_dataq_hot_of(shmem_queue_t queue)
{
    struct shmemq_dataq_hot *h = (struct shmemq_dataq_hot *)(void *)queue;
    return SHMEMQ_DQ_LIKELY(h != NULL && h->magic == SHMEMQ_DATAQ_LIVE) ? h : NULL;
}

/* Fibonacci hashing: the high half of the product spreads consecutive PEs. */
static inline uint32_t shmemq_dataq_rhash(uint32_t d, uint32_t mask)
{
    return (uint32_t)((d * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & mask;
}

/* The entry of destination d, or UINT32_MAX (none since the last flush). */
static inline uint32_t shmemq_dataq_rfind(const struct shmemq_dataq_rhot *r, uint32_t d)
{
    if (r->slot == NULL)
        return UINT32_MAX;
    uint64_t key = (uint64_t)(d + 1) << 32;
    for (uint32_t s = shmemq_dataq_rhash(d, r->mask);; s = (s + 1) & r->mask) {
        uint64_t v = r->slot[s];
        if (v == 0)
            return UINT32_MAX;
        if ((v & ~(uint64_t)UINT32_MAX) == key)
            return (uint32_t)v;
    }
}

/* Append `bytes` for entry i to the buffer of porter l, extending its last run when that
 * is i's: 0, or 1 with nothing changed (the buffer must grow, or 4 GiB or more). */
static inline int shmemq_dataq_rappend(struct shmemq_dataq_rhot *r, uint32_t l, uint32_t i,
                                       const void *src, size_t bytes)
{
    struct shmemq_dataq_rbuf *b = &r->porter[l];
    size_t last = r->plast[l], len = b->len;
    uint32_t run[2]; /* {entry, bytes}: the last run is always at the end of the buffer */
    if (bytes >= UINT32_MAX)
        return 1;
    if (last != SIZE_MAX) {
        memcpy(run, b->p + last, sizeof run);
        if (run[0] == i && bytes <= UINT32_MAX - run[1]) { /* extend it */
            if (bytes > b->cap - len)
                return 1;
            run[1] += (uint32_t)bytes;
            memcpy(b->p + last, run, sizeof run);
            shmemq_dataq_copy(b->p + len, src, bytes);
            b->len = len + bytes;
            return 0;
        }
    }
    if (sizeof run + bytes > b->cap - len)
        return 1;
    run[0] = i;
    run[1] = (uint32_t)bytes;
    r->plast[l] = len;
    memcpy(b->p + len, run, sizeof run);
    shmemq_dataq_copy(b->p + len + sizeof run, src, bytes);
    b->len = len + sizeof run + bytes;
    return 0;
}

/* A routed push of `bytes` to d (entry i) landed in its porter buffer: count it, and
 * remember d for the next push (the library's slow path ends the same way). */
static inline void shmemq_dataq_rpushed(struct shmemq_dataq_rhot *r, uint32_t d, uint32_t i,
                                        size_t bytes)
{
    r->ent[i].len += bytes;
    r->out_total += bytes;
    r->last_d = d;
    r->last_i = i;
}

/* A routed push of `bytes` (checked: 1 .. room) to d that needs nothing of the library:
 * 0, or 1 (a new destination, FULL, a buffer to grow) with nothing changed. */
static inline int shmemq_dataq_rpush(struct shmemq_dataq_hot *h, const void *src, size_t bytes,
                                     uint32_t d)
{
    struct shmemq_dataq_rhot *r = h->rt;
    uint32_t i = r->last_d == d ? r->last_i : shmemq_dataq_rfind(r, d);
    if (i == UINT32_MAX)
        return 1;
    struct shmemq_dataq_rent *e = &r->ent[i];
    if (bytes > h->room - e->len || shmemq_dataq_rappend(r, e->porter, i, src, bytes) != 0)
        return 1;
    shmemq_dataq_rpushed(r, d, i, bytes);
    return 0;
}

/* A push's arguments as both inline paths take them (anything else goes to the library,
 * which reports it): nelems - 1 < room_elems means 1 <= nelems <= room_elems, so
 * nelems * elem cannot overflow. */
static inline int shmemq_dataq_push_args_ok(const struct shmemq_dataq_hot *h, int pe,
                                            size_t nelems, const void *src)
{
    return (unsigned)pe < (unsigned)h->npes && nelems - 1 < h->room_elems && src != NULL;
}

static inline int shmemq_dataq_push_inline(shmem_queue_t queue, const void *src, size_t nelems,
                                           int pe)
{
    struct shmemq_dataq_hot *h = (struct shmemq_dataq_hot *)(void *)queue;
    uint32_t m = h != NULL ? h->magic : 0;
    if (SHMEMQ_DQ_LIKELY(m == SHMEMQ_DATAQ_LIVE && shmemq_dataq_push_args_ok(h, pe, nelems, src))) {
        size_t bytes = nelems * h->elem, len = h->out_len[pe];
        if (SHMEMQ_DQ_LIKELY(bytes <= h->room - len)) {
            shmemq_dataq_copy(h->out_at[pe] + len, src, bytes);
            h->out_len[pe] = len + bytes;
            return 0;
        }
    } else if (m == SHMEMQ_DATAQ_LIVE_ROUTED && shmemq_dataq_push_args_ok(h, pe, nelems, src)) {
        if (SHMEMQ_DQ_LIKELY(shmemq_dataq_rpush(h, src, nelems * h->elem, (uint32_t)pe) == 0))
            return 0;
    }
    /* FULL, errors, SHARED, and a routed push's new destination or buffer to grow */
    return (shmem_queue_data_push)(queue, src, nelems, pe);
}

static inline int shmemq_dataq_pop_inline(shmem_queue_t queue, void *dest, size_t nelems, int pe)
{
    struct shmemq_dataq_hot *h = shmemq_dataq_hot_of(queue);
    if (SHMEMQ_DQ_LIKELY(h != NULL && nelems - 1 < h->room_elems && dest != NULL)) {
        int p = pe;
        if (pe == SHMEM_QUEUE_ANY_PE) { /* lowest source with data */
            p = h->any_from;
            while (p < h->npes && h->in_len[p] == 0)
                p++;
            h->any_from = p;
        }
        if (SHMEMQ_DQ_LIKELY((unsigned)p < (unsigned)h->npes)) {
            size_t bytes = nelems * h->elem, len = h->in_len[p];
            if (SHMEMQ_DQ_LIKELY(bytes <= len)) {
                size_t head = h->in_head[p];
                shmemq_dataq_copy(dest, h->in_at[p] + head, bytes);
                h->in_len[p] = len - bytes;
                /* back to the front when drained, unless an exchange lands behind */
                h->in_head[p] = (len == bytes && h->phase == 0) ? 0 : head + bytes;
                return 0;
            }
            if (pe != SHMEM_QUEUE_ANY_PE)
                return SHMEM_QUEUE_ERR_EMPTY;
        } else if (pe == SHMEM_QUEUE_ANY_PE) {
            return SHMEM_QUEUE_ERR_EMPTY; /* every source is empty */
        }
    }
    return (shmem_queue_data_pop)(queue, dest, nelems, pe); /* spans sources, errors, SHARED */
}

#ifndef SHMEMQ_NO_INLINE
#define shmem_queue_data_push(queue, src, nelems, pe) \
    shmemq_dataq_push_inline(queue, src, nelems, pe)
#define shmem_queue_data_pop(queue, dest, nelems, pe) \
    shmemq_dataq_pop_inline(queue, dest, nelems, pe)
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_DATAQ_H */
