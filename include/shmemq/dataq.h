/*
 * shmemq/dataq.h: inline fast paths of data-queue push and pop (included by shmemx.h).
 *
 * shmem_queue_data_push / shmem_queue_data_pop are per-element calls in typical use
 * (bucketing, index-gather), so the common case is inlined into the caller: a handle
 * check, a bounds check and a memcpy of a size the compiler knows for 4, 8 and 16
 * bytes. Everything else (errors, FULL, SHARED queues, a pop spanning sources) calls
 * the library function, which does the full checks. The library functions stay
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
#define SHMEMQ_DATAQ_LIVE 0x44415432u        /* 'DAT2' */
#define SHMEMQ_DATAQ_LIVE_SHARED 0x44415332u /* 'DAS2' */

struct shmemq_dataq_hot {
    uint32_t magic;     /* SHMEMQ_DATAQ_LIVE(_SHARED) while live; MUST stay first */
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

static inline int shmemq_dataq_push_inline(shmem_queue_t queue, const void *src, size_t nelems,
                                           int pe)
{
    struct shmemq_dataq_hot *h = shmemq_dataq_hot_of(queue);
    /* nelems - 1 < room_elems: 1 <= nelems <= room_elems, so bytes cannot overflow */
    if (SHMEMQ_DQ_LIKELY(h != NULL && (unsigned)pe < (unsigned)h->npes &&
                         nelems - 1 < h->room_elems && src != NULL)) {
        size_t bytes = nelems * h->elem, len = h->out_len[pe];
        if (SHMEMQ_DQ_LIKELY(bytes <= h->room - len)) {
            shmemq_dataq_copy(h->out_at[pe] + len, src, bytes);
            h->out_len[pe] = len + bytes;
            return 0;
        }
    }
    return (shmem_queue_data_push)(queue, src, nelems, pe); /* FULL, errors, SHARED */
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
