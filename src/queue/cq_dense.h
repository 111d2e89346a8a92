/* cq_dense.h: the comm queue's summing array, shared by the node transport (cq_node.c)
 * and the held sums of adds to other nodes (cq_rhold.c).
 *
 * Bursts of ADDs whose addresses lie in a small range (a histogram's table) are summed
 * per word in a private array first. Node bursts then cost one CPU atomic per distinct
 * word (atomics on words other PEs also update cost a cache-line transfer each; summing
 * first cut the 2-PE histogram's contended adds ~8x, bench/README.md); bursts to other
 * nodes one record per distinct word. Layout of the CQ_DENSE_MAX words:
 *   [0, CQ_DENSE_BURST)               one burst's sums (node bursts, mailbox posts);
 *   [CQ_RHOLD_AT, + CQ_HOLD_WORDS)    sums held for a PE of another node (cq_rhold.c);
 *   [CQ_SELF_AT, + CQ_HOLD_WORDS)     this PE's own sums held ("Held sums", cq_node.c). */
#ifndef SHMEMQ_CQ_DENSE_H
#define SHMEMQ_CQ_DENSE_H

#include "comm_queue.h"

#define CQ_DENSE_MAX ((uint64_t)1 << 16) /* words in the summing array (queue_usage.c) */
#define CQ_HOLD_WORDS ((uint64_t)1 << 14)
#define CQ_SELF_AT (CQ_DENSE_MAX - CQ_HOLD_WORDS)
#define CQ_RHOLD_AT (CQ_SELF_AT - CQ_HOLD_WORDS)
#define CQ_DENSE_BURST CQ_RHOLD_AT

/* The summing array, allocated once per queue and zero between uses; NULL if it cannot be. */
static inline uint64_t *dense_array(shmem_queue_t q)
{
    if (!q->dense) {
        q->dense = calloc(CQ_DENSE_MAX, sizeof *q->dense);
        q->dense_cap = q->dense ? CQ_DENSE_MAX : 0; /* words, as shmemx_queue_usage counts them */
    }
    return q->dense;
}

/* The span in words of a burst of n adds of esize bytes in range r when it may be summed
 * in an array of cap words (aligned, at most 4 words per record); 0 when it may not. */
static inline uint64_t dense_span(const cq_range_t *r, uint32_t n, int esize, uint64_t cap)
{
    if (n < 64 || (esize != 8 && esize != 4) || (r->low_bits & (uint64_t)(esize - 1)))
        return 0;
    uint64_t span = (r->hi - r->lo) / (uint64_t)esize + 1;
    return span > 4 * (uint64_t)n || span > cap ? 0 : span;
}

/* The range of n displacements, computed in locals (a range whose address the loop
 * could see would be stored back every record: 7% of a 10k-counter histogram's cycles). */
static inline cq_range_t dense_range(const uint64_t *disp, uint32_t n)
{
    uint64_t lo = UINT64_MAX, hi = 0, low_bits = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d = disp[i];
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        low_bits |= d;
    }
    cq_range_t r = {lo, hi, low_bits};
    return r;
}

/* Sums the n adds into acc, whose first word is at displacement lo. */
static inline void dense_sum(uint64_t *acc, uint64_t lo, const uint64_t *disp,
                             const unsigned char *opnd, uint32_t n, int esize)
{
    if (esize == 8) {
        const uint64_t *v = (const uint64_t *)(const void *)opnd;
        for (uint32_t i = 0; i < n; i++)
            acc[(disp[i] - lo) >> 3] += v[i];
    } else { /* sums mod 2^32 are the low halves of the 64-bit sums */
        const uint32_t *v = (const uint32_t *)(const void *)opnd;
        for (uint32_t i = 0; i < n; i++)
            acc[(disp[i] - lo) >> 2] += v[i];
    }
}

/* Applies the sums acc[first..last] to the words of esize bytes from b with one CPU
 * atomic each, zeroing acc; returns the words applied. */
static inline uint64_t dense_apply(uint64_t *acc, uint64_t first, uint64_t last, unsigned char *b,
                                   int esize)
{
    uint64_t applied = 0;
    for (uint64_t k = first; k <= last; k++) {
        uint64_t v = acc[k];
        if (esize == 8 ? v != 0 : (uint32_t)v != 0) {
            if (esize == 8)
                __atomic_fetch_add((uint64_t *)(void *)(b + k * 8), v, __ATOMIC_RELAXED);
            else
                __atomic_fetch_add((uint32_t *)(void *)(b + k * 4), (uint32_t)v, __ATOMIC_RELAXED);
            applied++;
        }
        acc[k] = 0;
    }
    return applied;
}

/* Writes the sums acc[first..last] that are not 0 as records (displacement lo + k *
 * esize, the sum as operand), zeroing acc; returns the records written. */
static inline uint32_t dense_emit(uint64_t *acc, uint64_t first, uint64_t last, uint64_t lo,
                                  int esize, uint64_t *out_disp, unsigned char *out_opnd)
{
    uint32_t m = 0;
    for (uint64_t k = first; k <= last; k++) {
        uint64_t v = acc[k];
        if (esize == 8 ? v != 0 : (uint32_t)v != 0) {
            out_disp[m] = lo + k * (uint64_t)esize;
            if (esize == 8) {
                memcpy(out_opnd + (size_t)m * 8, &v, 8);
            } else {
                uint32_t v32 = (uint32_t)v;
                memcpy(out_opnd + (size_t)m * 4, &v32, 4);
            }
            m++;
        }
        acc[k] = 0;
    }
    return m;
}

#endif
