/* cq_dense.h: per-word sums of ADD bursts, shared by the node transport (cq_node.c) and
 * the held sums of adds to other PEs (cq_rhold.c).
 *
 * Bursts of ADDs whose addresses lie in a small range (a histogram's table) are summed
 * per word in a private array first. Node bursts then cost one CPU atomic per distinct
 * word (atomics on words other PEs also update cost a cache-line transfer each; summing
 * first cut the 2-PE histogram's contended adds ~8x, bench/README.md); bursts to other
 * nodes one record per distinct word. The node summing array's CQ_DENSE_MAX words:
 *   [0, CQ_DENSE_BURST)               one burst's sums (node bursts, mailbox posts);
 *   [CQ_SELF_AT, + CQ_HOLD_WORDS)     this PE's own sums held ("Held sums", cq_node.c).
 * Sums held for other PEs have arrays of their own, CQ_RWIN_WORDS words a
 * window (cq_rhold.c), made only by queues that hold them. */
#ifndef SHMEMQ_CQ_DENSE_H
#define SHMEMQ_CQ_DENSE_H

#include "comm_queue.h"

#define CQ_HOLD_WORDS ((uint64_t)1 << 14)
#define CQ_DENSE_BURST ((uint64_t)1 << 15)
#define CQ_SELF_AT CQ_DENSE_BURST
#define CQ_DENSE_MAX (CQ_SELF_AT + CQ_HOLD_WORDS) /* words in the node summing array */
#define CQ_RWIN_WORDS ((uint64_t)1 << 14) /* words of a window held for another node */
/* Bytes the windows for other PEs take when all are in use (queue_usage.c's model) */
#define CQ_RHOLD_BYTES (CQ_RHOLD_N * CQ_RWIN_WORDS * sizeof(uint64_t))

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

/* Writes the sums acc[*first..last] that are not 0 as records (displacement lo + k *
 * esize, the sum as operand), at most cap of them, zeroing acc; returns the records
 * written and moves *first past the last word read. */
static inline uint32_t dense_emit(uint64_t *acc, uint64_t *first, uint64_t last, uint64_t lo,
                                  int esize, uint64_t *out_disp, unsigned char *out_opnd,
                                  uint32_t cap)
{
    uint32_t m = 0;
    uint64_t k = *first;
    for (; k <= last && m < cap; k++) {
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
    *first = k;
    return m;
}

/* ---- a window of held sums (cq_sumwin_t): this PE's own, and each other node's ---- */

/* Whether a burst of range r falls in window w of `words` words of es bytes. */
static inline int sumwin_fits(const cq_sumwin_t *w, const cq_range_t *r, uint64_t es,
                              uint64_t words)
{
    return r->lo >= w->lo && (r->hi - w->lo) / es < words;
}

/* Opens w (nothing held) on a burst of span words at range r, centred so that the
 * bursts around it fit too. */
static inline void sumwin_open(cq_sumwin_t *w, const cq_range_t *r, uint64_t span, uint64_t es,
                               uint64_t words)
{
    uint64_t slack = (words - span) / 2 * es;
    w->lo = r->lo > slack ? r->lo - slack : 0;
    w->n = 0;
    w->min = UINT32_MAX;
    w->max = 0;
}

/* Sums a burst of n adds (range r) into acc, w's sums, counting `count` records held. */
static inline void sumwin_add(cq_sumwin_t *w, uint64_t *acc, const cq_range_t *r,
                              const uint64_t *disp, const unsigned char *opnd, uint32_t n,
                              int esize, uint64_t count)
{
    const uint64_t es = (uint64_t)esize;
    dense_sum(acc, w->lo, disp, opnd, n, esize);
    uint32_t a = (uint32_t)((r->lo - w->lo) / es), z = (uint32_t)((r->hi - w->lo) / es);
    w->min = a < w->min ? a : w->min;
    w->max = z > w->max ? z : w->max;
    w->n += count;
}

static inline uint64_t sumwin_touched(const cq_sumwin_t *w)
{
    return (uint64_t)w->max - w->min + 1;
}

/* Records a window of held sums (the PE's own, cq_node.c, and other PEs', cq_rhold.c)
 * holds per word touched before it leaves: 64 measured better than 16 for other PEs (two
 * nodes of two, 1k counters: 0.85 -> 1.02-1.13x mpi_alltoallv) and as good as 256, which
 * holds more records outstanding; for a PE's own sums better than 4 (2 PEs, 1k counters:
 * +5 % commq on one node, 0.82-0.97 -> 1.10-1.11x every PE its own node; bench/README.md). */
#define CQ_SUM_PER_WORD 64

/* Whether w has summed enough to leave: `per_word` records per word touched (most
 * words then take several), or a quarter of the queue's max_elems. */
static inline int sumwin_full(const cq_sumwin_t *w, uint64_t per_word, uint64_t max_elems)
{
    return w->n >= per_word * sumwin_touched(w) || w->n >= max_elems / 4;
}

/* Applies w's sums (acc, from displacement w->lo of base) with one CPU atomic per word
 * touched, complete on return: its records leave the outstanding count, the words whose
 * sum was 0 count as merged away. Returns the words applied. */
static inline uint64_t sumwin_apply(shmem_queue_t q, cq_sumwin_t *w, uint64_t *acc,
                                    unsigned char *base, int esize)
{
    uint64_t m = dense_apply(acc, w->min, w->max, base + w->lo, esize);
    q->st.combined_ops += w->n - m;
    q->outstanding -= w->n;
    w->n = 0;
    return m;
}

#endif
