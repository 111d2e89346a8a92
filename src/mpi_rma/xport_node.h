/* xport_node.h: the node transport (xport.h). Loads, stores and CPU atomics on a node
 * peer's memory mapped in this process (node.c makes the mappings): complete on return,
 * nothing runs on the target. Everything here is inline: these are the hot paths of
 * every put, get and atomic within a node. */
#ifndef SHMEMI_XPORT_NODE_H
#define SHMEMI_XPORT_NODE_H

#include "shmemi.h"
#include "xport_types.h"
#include <stdatomic.h>

#define SHMEMI_NODE_AMO_BODY(UT)                                                          \
    do {                                                                                  \
        UT *p = (UT *)(void *)addr, v = 0, c = 0, old;                                    \
        if (value)                                                                        \
            memcpy(&v, value, sizeof v);                                                  \
        switch (kind == SHMEMI_AMO_CAS ? SHMEMI_XOP_CAS : op) {                           \
        case SHMEMI_XOP_CAS:                                                              \
            memcpy(&c, cond, sizeof c);                                                   \
            old = c;                                                                      \
            __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                        \
        case SHMEMI_XOP_SUM:                                                              \
            old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                             \
            break;                                                                        \
        case SHMEMI_XOP_SET:                                                              \
            if (kind == SHMEMI_AMO_ACC) {                                                 \
                __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                 \
                return;                                                                   \
            }                                                                             \
            old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                            \
            break;                                                                        \
        case SHMEMI_XOP_FETCH:                                                            \
            old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                   \
            break;                                                                        \
        case SHMEMI_XOP_AND:                                                              \
            old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                             \
            break;                                                                        \
        case SHMEMI_XOP_OR:                                                               \
            old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                              \
            break;                                                                        \
        default:                                                                          \
            old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                             \
            break;                                                                        \
        }                                                                                 \
        if (result)                                                                       \
            memcpy(result, &old, sizeof old);                                             \
    } while (0)

/* One atomic on a naturally aligned 4- or 8-byte word mapped here. kind is SHMEMI_AMO_*
 * (op is ignored for SHMEMI_AMO_CAS), op the operation; sums are on the unsigned
 * type of the size, which gives two's-complement signed sums too. Only integer and
 * bitwise operations and SET/FETCH reach here (float sums do not exist in OpenSHMEM). */
static inline void shmemi_node_amo(void *addr, size_t size, int kind, shmemi_xop_t op,
                                   const void *value, const void *cond, void *result)
{
    if (size == 8)
        SHMEMI_NODE_AMO_BODY(uint64_t);
    else
        SHMEMI_NODE_AMO_BODY(uint32_t);
}

/* Orders and completes the node transport's stores (quiet, fence): they are done on
 * return already; the fence makes them visible before anything that follows. */
static inline void shmemi_node_quiet(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

/* Bytes to and from a peer's memory mapped here (the same copy as the inline path,
 * rma_inline.h). REMOTE completion also orders them before what follows. */
static inline void shmemi_node_put(char *remote, const void *src, size_t n, int done)
{
    shmemq_node_copy(remote, src, n);
    if (done == SHMEMI_XP_REMOTE)
        shmemi_node_quiet();
}

static inline void shmemi_node_get(void *dest, const char *remote, size_t n)
{
    shmemq_node_copy(dest, remote, n);
}

/* n blocks of blk bytes, d / s bytes apart on each side. */
static inline void shmemi_node_strided(char *dest, ptrdiff_t ds, const char *src, ptrdiff_t ss,
                                       size_t blk, size_t n)
{
    for (size_t k = 0; k < n; k++)
        memmove(dest + (ptrdiff_t)k * ds, src + (ptrdiff_t)k * ss, blk);
}

/* PE pe's region (0 heap, 1 data) as mapped here, or NULL when the node transport does
 * not reach it. */
static inline char *shmemi_node_region(int region, int pe)
{
    return shmemi.node_base[region][pe];
}

#endif /* SHMEMI_XPORT_NODE_H */
