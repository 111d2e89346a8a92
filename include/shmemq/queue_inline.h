/*
 * shmemq/queue_inline.h: the inline push fast path of communication queues.
 * Included by shmemx.h; not a header to include on its own.
 *
 * Why: a queued histogram update is a few stores, but a call into the shared library
 * (PLT, argument checks that the caller's constants could have settled, prologue)
 * costs several times that. So the typed pushes are also defined here, static inline,
 * for the cases that dominate aggregation codes: one atomic element, the target's
 * buffer has room, and the queue lets pushes skip locks and timers; or one PUT/GET
 * element on the heap: a copy for a PE of this node, else a record like an atomic's
 * (for a GET the local address stands in the operand's place). Everything else
 * (errors, full buffers, other PUT/GET, SHARED or timed queues) calls the library function,
 * which checks all over again; results and error codes are the same either way.
 *
 * The protocol between the library and this code is the layout below: a queue object
 * starts with shmemq_cq_fast_t and its slots are shmemq_cq_slot_t (the library uses
 * these very types), the library keeps `type_ops` zero whenever the inline path must
 * not be taken (destroyed, SHARED or timed queues), and `cap` bounds what a buffer may
 * take. Changing the layout changes the library's ABI.
 *
 * Define SHMEMQ_NO_INLINE before including shmemx.h to get plain calls everywhere
 * (for example to intercept every push through the pshmem_ profiling names).
 */
#ifndef SHMEMQ_QUEUE_INLINE_H
#define SHMEMQ_QUEUE_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Operation slots per target PE: ADD and INC share one (INC is ADD of 1). */
#define SHMEMQ_CQ_NSLOTS 7
#define SHMEMQ_CQ_SLOT(op) ((op) < 3 ? (int)(op) : (int)(op) - 1)
#define SHMEMQ_CQ_MAGIC_LIVE 0x7175657565434f4dULL

/* Type indices, in SHMEMQ_RMA_TYPES order (the library uses the same order). */
#define SHMEMQ_CQ_TENUM(T, N) SHMEMQ_CQ_T_##N,
enum { SHMEMQ_RMA_TYPES(SHMEMQ_CQ_TENUM) SHMEMQ_CQ_NTYPES };
#undef SHMEMQ_CQ_TENUM

/* One open burst buffer: n records of the element type and window `key`. The inline
 * path may add records while n < cap; the library grants cap from the queue's max_elems
 * (the grant counts as outstanding until the buffer leaves, unused records are given
 * back), so the inline path compares nothing against max_elems. Its per-slot n is the
 * only count it must keep; the queue-wide open_ops only while the library asks for it
 * (`counting`: the program queries the count often, see comm_queue.h). */
typedef struct shmemq_cq_slot {
    uint32_t n, cap;
    uint32_t key;       /* type index | window << 8; 0xffffffff: no open buffer */
    uint32_t reserved_;
    uint64_t *disp;     /* offsets from the start of the target's heap or data segment */
    unsigned char *opnd; /* operands, element size each */
    struct shmemq_cq_chunk *ch; /* the library's buffer (opaque here) */
} shmemq_cq_slot_t;

typedef struct shmemq_cq_fast {
    uint64_t magic;       /* SHMEMQ_CQ_MAGIC_LIVE while the queue exists (library checks) */
    uint64_t open_ops;    /* records in open buffers (atomic slots), kept while counting */
    int32_t n_pes;
    uint8_t type_ops[SHMEMQ_CQ_NTYPES]; /* per type: bit per op the inline path may take;
                                           all zero once the queue is destroyed */
    uint8_t counting;     /* 1: every push adds to open_ops as well */
    /* per op slot, one entry per target PE ([slot][pe]); NULL for the slots of ops the
     * queue does not carry, which type_ops never lets the inline path reach */
    shmemq_cq_slot_t *plane[SHMEMQ_CQ_NSLOTS];
    /* Node-routed queues (SHMEMQ_QUEUE_ROUTE=node), else NULL: per PE, the index of its
     * entry in the planes (low 32 bits: the PEs of this node, then one per other node)
     * and the bits its records' displacements carry (the top 16: its rank on its node,
     * for a PE of another node). */
    const uint64_t *route;
    /* Node transport: per PE, its symmetric heap mapped in this process (NULL: not on
     * this node), or NULL altogether. A one-element PUT or GET on the heap of such a PE
     * is a copy made right here, complete at once; node_rw counts them (statistics). */
    char *const *node_heap;
    uint64_t node_rw;
    /* Symmetric heap and data segment of this PE. An element at offset `off` from a
     * base takes the inline path when off < span: span is the size less 15 bytes, so
     * one comparison proves that an element of up to 16 bytes lies inside. */
    uintptr_t heap_base;
    size_t heap_span;
    uintptr_t data_base;
    size_t data_span;
} shmemq_cq_fast_t;

/* 1 and the element stored, or 0 when the library call must do it. The library's own
 * push fast path (cq_push) is this function too. */
static inline int shmemq_cq_push_inline(shmem_queue_t q, int tidx, size_t esize, void *dest,
                                        const void *src, size_t nelems, int pe,
                                        shmem_op_type_t op)
{
    shmemq_cq_fast_t *f = (shmemq_cq_fast_t *)(void *)q;
    if (!(f != NULL && nelems == 1 && (unsigned)op < 8u &&
          ((f->type_ops[tidx] >> (unsigned)op) & 1u) && (unsigned)pe < (unsigned)f->n_pes &&
          (src != NULL || op == SHMEM_OP_ATOMIC_INC)))
        return 0;
    uintptr_t off;
    uint32_t key;
    const void *operand = src;
    size_t osize = esize;  /* operand bytes in the slot */
    uint64_t where;        /* a GET's operand: where the value goes */
    if (op == SHMEM_OP_PUT || op == SHMEM_OP_GET) { /* heap targets only */
        off = (uintptr_t)(op == SHMEM_OP_GET ? src : dest) - f->heap_base;
        if (dest == NULL || off >= f->heap_span ||
            (((uintptr_t)dest | off) & (uintptr_t)(esize - 1)))
            return 0; /* misaligned: the library refuses it */
        char *b = f->node_heap != NULL ? f->node_heap[pe] : NULL;
#if defined(__GNUC__)
        if (__builtin_expect(b != NULL, 1)) { /* a PE of this node: the copy is the operation */
#else
        if (b != NULL) {
#endif
            if (op == SHMEM_OP_GET)
                memcpy(dest, b + off, esize);
            else
                memcpy(b + off, src, esize);
            f->node_rw++;
            return 1;
        }
        /* elsewhere: a record in the slot, like an atomic's */
        key = (uint32_t)tidx;
        if (op == SHMEM_OP_GET) {
            where = (uint64_t)(uintptr_t)dest;
            operand = &where;
            osize = 8;
        }
    } else {
        off = (uintptr_t)dest - f->heap_base;
#if defined(__GNUC__)
        if (__builtin_expect(off < f->heap_span, 1)) { /* heap targets are the common case */
#else
        if (off < f->heap_span) {
#endif
            key = (uint32_t)tidx;
        } else {
            off = (uintptr_t)dest - f->data_base;
            if (off >= f->data_span)
                return 0;
            key = (uint32_t)tidx | (1u << 8);
        }
    }
    uint32_t idx = (uint32_t)pe;
    uint64_t tag = 0;
#if defined(__GNUC__)
    if (__builtin_expect(f->route != NULL, 0)) {
#else
    if (f->route != NULL) {
#endif
        uint64_t r = f->route[pe];
        idx = (uint32_t)r;
        tag = r & ~(uint64_t)0xffffffffu;
    }
    shmemq_cq_slot_t *s = &f->plane[SHMEMQ_CQ_SLOT(op)][idx];
    if (s->key != key || s->n >= s->cap || (off & (uintptr_t)(esize - 1)))
        return 0; /* region bases are 64-byte aligned: off tells the target's alignment */
    uint32_t n = s->n++;
    s->disp[n] = (uint64_t)off | tag;
    unsigned char *o = s->opnd + (size_t)n * osize;
    if (op == SHMEM_OP_ATOMIC_INC) {
        memset(o, 0, esize); /* INC is ADD of 1 (little-endian operand) */
        o[0] = 1;
    } else {
        memcpy(o, operand, osize);
    }
    /* A counter incremented by every push is a store-to-load chain through memory
     * that slowed push-only loops by 14%: it is kept only while counting. */
#if defined(__GNUC__)
    if (__builtin_expect(f->counting, 0))
#else
    if (f->counting)
#endif
        f->open_ops++;
    return 1;
}

#if !defined(SHMEMQ_NO_INLINE) && !defined(SHMEMQ_BUILDING_LIBRARY)
/* The library call gets a copy of a one-element operand, not the caller's object: its
 * address then never leaves the inline code, so the compiler may keep the operand (the
 * `one` of a histogram) in a register or as a constant instead of reloading it after
 * every record store. Not for GET (src is the remote address) or INC (src unused). */
#define SHMEMQ_CQ_DEF_INLINE(T, N)                                                         \
    static inline int shmem_##N##_queue_comm_push(shmem_queue_t q, T *dest, const T *src,  \
                                                  size_t nelems, int pe,                   \
                                                  shmem_op_type_t op)                      \
    {                                                                                      \
        if (shmemq_cq_push_inline(q, SHMEMQ_CQ_T_##N, sizeof(T), dest, src, nelems, pe, op)) \
            return 0;                                                                      \
        if (nelems == 1 && src != NULL && op != SHMEM_OP_GET && op != SHMEM_OP_ATOMIC_INC) { \
            T operand;                                                                     \
            memcpy(&operand, src, sizeof(T));                                              \
            return pshmem_##N##_queue_comm_push(q, dest, &operand, 1, pe, op);            \
        }                                                                                  \
        return pshmem_##N##_queue_comm_push(q, dest, src, nelems, pe, op);                \
    }
SHMEMQ_RMA_TYPES(SHMEMQ_CQ_DEF_INLINE)
#undef SHMEMQ_CQ_DEF_INLINE
#endif /* inline */

#ifdef __cplusplus
}
#endif

#endif
