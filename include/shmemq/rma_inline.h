/*
 * shmemq/rma_inline.h: contiguous put/get to PEs of this node, inline.
 * Included by shmem.h; not a header to include on its own.
 *
 * Why: between PEs of one node a put or get is a memcpy through the node mapping (the
 * node transport, docs/design.md), and for small blocks the library call around it
 * (PLT, argument checks, the transport choice) cost 2-3x the copy (bench/node_copy).
 * So the default-context blocking and _nbi puts and gets, p and g, are defined here,
 * static inline, for one case: the whole range lies in the symmetric heap and the PE's
 * heap is mapped here. Everything else calls the library (pshmem_ names), which checks
 * and reports as usual; results are the same either way (a node copy is complete on
 * return, which both blocking and _nbi forms allow).
 *
 * The protocol with the library is shmemq_node_fast_v2 below: `node_heap` is NULL before
 * shmem_init, after shmem_finalize and while the default context has a 1.6 session
 * (whose queue a get must see first). Changing the layout changes the library's ABI,
 * and the variable's name with it (now _v2): a program built against another layout
 * then fails to load instead of reading the wrong fields.
 * Define SHMEMQ_NO_INLINE before including shmem.h to get plain calls everywhere.
 */
#ifndef SHMEMQ_RMA_INLINE_H
#define SHMEMQ_RMA_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The fields sit in the last 64 bytes of a 4 KiB-aligned object, and the library puts
 * the node_heap array at the end of a page too. Why: x86 cores compare only bits 0-11
 * of a load's address with the pending stores', so a load of these fields right after
 * a put whose destination covers the same page offsets waits for those stores (4K
 * aliasing). Puts mostly start at low page offsets (page-aligned allocations); with the
 * fields high in the page a 512-byte node put went from 1.1-1.6x a memcpy to 1.0x in
 * most runs (bench/node_copy, bench/README.md). */
typedef struct shmemq_node_fast {
    unsigned char reserved_[4096 - 64]; /* keeps the fields off the low page offsets */
    char *const *node_heap; /* per PE: its heap mapped here, or NULL; NULL: path off */
    uintptr_t heap_base;
    size_t heap_size;
    int n_pes;
} shmemq_node_fast_t;
#if defined(__GNUC__)
extern shmemq_node_fast_t shmemq_node_fast_v2 __attribute__((aligned(4096)));
#else
extern shmemq_node_fast_t shmemq_node_fast_v2;
#endif

/* The remote range [addr, addr+n) of PE pe as mapped here, or NULL. */
static inline char *shmemq_node_addr(const void *addr, size_t n, int pe)
{
    const shmemq_node_fast_t *f = &shmemq_node_fast_v2;
    char *const *h = f->node_heap;
    uintptr_t off = (uintptr_t)addr - f->heap_base;
    if (h == NULL || (unsigned)pe >= (unsigned)f->n_pes || off >= f->heap_size ||
        n > f->heap_size - off || h[pe] == NULL)
        return NULL;
    return h[pe] + off;
}

/* memmove for the node copies: blocks of up to 64 bytes are copied right here (all
 * loads before all stores, so overlap is fine), which saves the call and memmove's size
 * dispatch, the larger part of a small put's cost (bench/node_copy). n > 0. */
static inline void shmemq_node_copy(void *dest, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dest;
    const unsigned char *s = (const unsigned char *)src;
    struct shmemq_b16 {
        unsigned char x[16];
    };
    if (n > 64) {
        memmove(d, s, n);
    } else if (n > 32) { /* four 16-byte blocks, the middle two overlapping as needed */
        struct shmemq_b16 a, b, c, e;
        memcpy(&a, s, 16);
        memcpy(&b, s + 16, 16);
        memcpy(&c, s + n - 32, 16);
        memcpy(&e, s + n - 16, 16);
        memcpy(d, &a, 16);
        memcpy(d + 16, &b, 16);
        memcpy(d + n - 32, &c, 16);
        memcpy(d + n - 16, &e, 16);
    } else if (n > 16) {
        struct shmemq_b16 a, b;
        memcpy(&a, s, 16);
        memcpy(&b, s + n - 16, 16);
        memcpy(d, &a, 16);
        memcpy(d + n - 16, &b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        unsigned char a = s[0], b = s[n / 2], c = s[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

#if !defined(SHMEMQ_NO_INLINE) && !defined(SHMEMQ_BUILDING_LIBRARY)
/* NAME moves n elements of SIZE bytes; IS_GET picks the remote side. */
#define SHMEMQ_NODE_RMA(NAME, T, SIZE, IS_GET)                                               \
    void p##NAME(T *dest, const T *source, size_t nelems, int pe);                           \
    static inline void NAME(T *dest, const T *source, size_t nelems, int pe)                 \
    {                                                                                        \
        size_t n = nelems * (size_t)(SIZE);                                                  \
        char *r = (nelems <= SIZE_MAX / (size_t)(SIZE) && (IS_GET ? dest : (T *)source))    \
                      ? shmemq_node_addr(IS_GET ? (const void *)source : (const void *)dest, \
                                         n, pe)                                              \
                      : NULL;                                                                \
        if (r != NULL && n != 0) {                                                           \
            if (IS_GET)                                                                      \
                shmemq_node_copy((void *)dest, r, n);                                        \
            else                                                                             \
                shmemq_node_copy(r, (const void *)source, n);                                \
            return;                                                                          \
        }                                                                                    \
        p##NAME(dest, source, nelems, pe);                                                   \
    }

#define SHMEMQ_NODE_RMA_TYPED(T, N)                                                          \
    SHMEMQ_NODE_RMA(shmem_##N##_put, T, sizeof(T), 0)                                        \
    SHMEMQ_NODE_RMA(shmem_##N##_get, T, sizeof(T), 1)                                        \
    SHMEMQ_NODE_RMA(shmem_##N##_put_nbi, T, sizeof(T), 0)                                    \
    SHMEMQ_NODE_RMA(shmem_##N##_get_nbi, T, sizeof(T), 1)                                    \
    void pshmem_##N##_p(T *dest, T value, int pe);                                           \
    static inline void shmem_##N##_p(T *dest, T value, int pe)                               \
    {                                                                                        \
        char *r = shmemq_node_addr(dest, sizeof(T), pe);                                     \
        if (r != NULL)                                                                       \
            memcpy(r, &value, sizeof(T));                                                    \
        else                                                                                 \
            pshmem_##N##_p(dest, value, pe);                                                 \
    }                                                                                        \
    T pshmem_##N##_g(const T *source, int pe);                                               \
    static inline T shmem_##N##_g(const T *source, int pe)                                   \
    {                                                                                        \
        const char *r = shmemq_node_addr(source, sizeof(T), pe);                             \
        T value;                                                                             \
        if (r == NULL)                                                                       \
            return pshmem_##N##_g(source, pe);                                               \
        memcpy(&value, r, sizeof(T));                                                        \
        return value;                                                                        \
    }
SHMEMQ_RMA_TYPES(SHMEMQ_NODE_RMA_TYPED)
#undef SHMEMQ_NODE_RMA_TYPED

SHMEMQ_NODE_RMA(shmem_putmem, void, 1, 0)
SHMEMQ_NODE_RMA(shmem_getmem, void, 1, 1)
SHMEMQ_NODE_RMA(shmem_putmem_nbi, void, 1, 0)
SHMEMQ_NODE_RMA(shmem_getmem_nbi, void, 1, 1)
#undef SHMEMQ_NODE_RMA
#endif /* inline */

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_RMA_INLINE_H */
