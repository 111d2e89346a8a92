/* cq_node.c: the comm queue's node transport (src/mpi_rma/xport.h). A burst for a PE
 * of this node is applied by the pushing PE into that PE's memory mapped here: atomics
 * with CPU atomics, puts and gets as copies. Complete on return; the target's CPU plays
 * no part. */
#include "comm_queue.h"

/* Node bursts of ADDs whose addresses lie in a small range (a histogram's table): summed
 * into a private array first, then one CPU atomic per distinct word. Atomics on words
 * other PEs also update cost a cache-line transfer each; summing first cut the 2-PE
 * histogram's contended adds ~8x (bench/README.md). 0 when the burst does not qualify. */
#define CQ_DENSE_MAX ((uint64_t)1 << 16) /* words in the summing array at most */
static int node_add_dense(shmem_queue_t q, unsigned char *base, const uint64_t *disp,
                          const unsigned char *opnd, uint32_t n, int esize)
{
    if (n < 64 || (esize != 8 && esize != 4))
        return 0;
    uint64_t lo = UINT64_MAX, hi = 0, low_bits = 0;
    for (uint32_t i = 0; i < n; i++) {
        lo = disp[i] < lo ? disp[i] : lo;
        hi = disp[i] > hi ? disp[i] : hi;
        low_bits |= disp[i];
    }
    uint64_t span = (hi - lo) / (uint64_t)esize + 1;
    if ((low_bits & (uint64_t)(esize - 1)) || span > 4 * (uint64_t)n || span > CQ_DENSE_MAX)
        return 0;
    if (q->dense_cap < span) {
        uint64_t *d = calloc(CQ_DENSE_MAX, sizeof *d); /* once per queue; zero between uses */
        if (!d)
            return 0;
        free(q->dense);
        q->dense = d;
        q->dense_cap = CQ_DENSE_MAX;
    }
    uint64_t *acc = q->dense, applied = 0;
    if (esize == 8) {
        const uint64_t *v = (const uint64_t *)(const void *)opnd;
        for (uint32_t i = 0; i < n; i++)
            acc[(disp[i] - lo) >> 3] += v[i];
        for (uint64_t k = 0; k < span; k++)
            if (acc[k]) {
                __atomic_fetch_add((uint64_t *)(void *)(base + lo + k * 8), acc[k], __ATOMIC_RELAXED);
                acc[k] = 0;
                applied++;
            }
    } else { /* sums mod 2^32 are the low halves of the 64-bit sums */
        const uint32_t *v = (const uint32_t *)(const void *)opnd;
        for (uint32_t i = 0; i < n; i++)
            acc[(disp[i] - lo) >> 2] += v[i];
        for (uint64_t k = 0; k < span; k++)
            if (acc[k]) {
                if ((uint32_t)acc[k])
                    __atomic_fetch_add((uint32_t *)(void *)(base + lo + k * 4), (uint32_t)acc[k],
                                       __ATOMIC_RELAXED);
                acc[k] = 0;
                applied++;
            }
    }
    q->st.combined_ops += n - applied; /* words whose sum was 0 count as merged away */
    return 1;
}

/* Applies the slot's chunk (n pushed records, `sent` after combining) at `base`: complete
 * on return, so every pushed record leaves the outstanding count now. */
int cq_node_burst(shmem_queue_t q, cq_slot_t *s, cq_chunk_t *c, unsigned char *base,
                      uint32_t n, uint32_t sent)
{
    cq_msghdr_t *h = chunk_hdr(c);
    if ((h->slot == CQ_S_PUT || h->slot == CQ_S_GET) && h->tidx != SHMEMI_XT_BYTES) {
        /* one-element typed records (cq_push.c): not made for node targets, which the
         * push copies at once; applied here should a chunk ever reach a node PE */
        size_t es = cq_esize[h->tidx];
        if (h->slot == CQ_S_PUT)
            cq_apply_typed_puts(base, s->disp, s->opnd, n, es);
        else
            cq_apply_typed_gets(base, s->disp, s->opnd, n, es);
        q->st.bytes += (uint64_t)n * es;
    } else if (h->slot == CQ_S_PUT) {
        cq_apply_puts(base, chunk_data(c), n);
        q->st.bytes += c->used;
    } else if (h->slot == CQ_S_GET) {
        cq_apply_gets(base, chunk_data(c), n);
        q->st.bytes += c->used;
    } else {
        if (h->slot != CQ_S_ADD || !node_add_dense(q, base, s->disp, s->opnd, sent, h->esize))
            cq_apply_atomics(base, h->slot, h->esize, s->disp, s->opnd, sent, 1);
        q->st.bytes += (uint64_t)sent * h->esize;
    }
    s->n = 0;
    chunk_put(q, c);
    q->outstanding -= n;
    q->st.bursts++;
    return 0;
}
