/* cq_apply.c: applying comm-queue records to a region mapped here: the batches that
 * arrive as messages (cq_apply, called by the message engine, am.c) and the node
 * transport's bursts, which the origin applies to a peer's memory itself (cq_node.c).
 * The record formats are comm_queue.h's.
 *
 * Atomicity: batches are applied by this PE's thread inside a library call. MPICH ch4
 * applies MPI accumulates (shmem_atomic_*) the same way, inside MPI calls of this
 * process, so below SHMEM_THREAD_MULTIPLE the two never run at once and plain
 * read-modify-writes are atomic with respect to each other, but only when nothing else
 * writes here: under THREAD_MULTIPLE, with the node agent in this process, with node
 * peers (their bursts and AMOs are CPU atomics on this memory) and for node bursts the
 * adds use __atomic builtins (am.c sets cq_atomic_apply); docs/queues_design.md. */
#include "comm_queue.h"

int cq_atomic_apply;

static inline unsigned char *cq_addr(int win, uint64_t disp)
{
    return (unsigned char *)(win == 0 ? shmemi.heap_base : shmemi.data_base) + disp;
}

#define CQ_APPLY_INT(UT)                                                                   \
    do {                                                                                   \
        UT *p = (UT *)a;                                                                   \
        UT v;                                                                              \
        memcpy(&v, operand, sizeof v);                                                     \
        if (atomic) {                                                                      \
            CQ_ATOMIC_OP(slot, p, v);                                                      \
        } else {                                                                           \
            switch (slot) {                                                                \
            case CQ_S_ADD: *p += v; break;                                                 \
            case CQ_S_SET: *p = v; break;                                                  \
            case CQ_S_AND: *p &= v; break;                                                 \
            case CQ_S_OR: *p |= v; break;                                                  \
            case CQ_S_XOR: *p ^= v; break;                                                 \
            }                                                                              \
        }                                                                                  \
    } while (0)

static inline void apply_one(unsigned char *a, int slot, int esize, const void *operand,
                             int atomic)
{
    if (esize == 8)
        CQ_APPLY_INT(uint64_t);
    else if (esize == 4)
        CQ_APPLY_INT(uint32_t);
    else
        memcpy(a, operand, (size_t)esize); /* not reached: AMO types are 4 or 8 bytes */
}

void cq_apply_one(int slot, int esize, int win, uint64_t disp, const void *operand)
{
    apply_one(cq_addr(win, disp), slot, esize, operand, cq_atomic_apply);
}

/* The hot loops of the histogram: unsigned 64-bit adds (two's complement makes signed
 * and unsigned adds the same bits, without signed-overflow UB). One body serves the
 * plain batch (64-bit displacements, an operand each) and the packed one (32-bit
 * displacements, one operand); VAL is the operand of op i. No software prefetch: the
 * adds are independent, so out-of-order execution overlaps their misses anyway, and a
 * prefetch per add measured slower at 1000 and at 1M counters (8 MiB) alike. */
#define CQ_APPLY_ADD64(NAME, DISP_T, VPARAM, VAL)                                          \
    static void NAME(unsigned char *base, const DISP_T *disp, VPARAM, uint32_t n,         \
                     int atomic)                                                           \
    {                                                                                      \
        if (atomic) {                                                                      \
            for (uint32_t i = 0; i < n; i++)                                               \
                __atomic_fetch_add((uint64_t *)(base + disp[i]), VAL, __ATOMIC_RELAXED);   \
        } else {                                                                           \
            for (uint32_t i = 0; i < n; i++)                                               \
                *(uint64_t *)(base + disp[i]) += VAL;                                      \
        }                                                                                  \
    }
CQ_APPLY_ADD64(apply_add64, uint64_t, const uint64_t *v, v[i])
CQ_APPLY_ADD64(apply_add64_packed, uint32_t, uint64_t v, v)
#undef CQ_APPLY_ADD64

void cq_apply_atomics(unsigned char *base, int slot, int esize, const uint64_t *disp,
                      const unsigned char *opnd, uint32_t n, int atomic)
{
    if (slot == CQ_S_ADD && esize == 8) {
        apply_add64(base, disp, (const uint64_t *)(const void *)opnd, n, atomic);
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        apply_one(base + disp[i], slot, esize, opnd + (size_t)i * esize, atomic);
}

void cq_apply_puts(unsigned char *base, const unsigned char *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d, len;
        memcpy(&d, p, 8);
        memcpy(&len, p + 8, 8);
        memcpy(base + d, p + 16, len);
        p += 16 + ((len + 7) & ~(uint64_t)7);
    }
}

void cq_apply_gets(const unsigned char *base, const unsigned char *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d, len, local;
        memcpy(&d, p, 8);
        memcpy(&len, p + 8, 8);
        memcpy(&local, p + 16, 8);
        memcpy((void *)(uintptr_t)local, base + d, len);
        p += 24;
    }
}

void cq_apply_typed_puts(unsigned char *base, const uint64_t *disp, const unsigned char *vals,
                         uint32_t n, size_t es)
{
    for (uint32_t i = 0; i < n; i++)
        memcpy(base + disp[i], vals + (size_t)i * es, es);
}

void cq_apply_typed_gets(const unsigned char *base, const uint64_t *disp,
                         const unsigned char *addrs, uint32_t n, size_t es)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a;
        memcpy(&a, addrs + (size_t)i * 8, 8);
        memcpy((void *)(uintptr_t)a, base + disp[i], es);
    }
}

void cq_apply(const cq_msghdr_t *h, const unsigned char *data)
{
    uint32_t n = h->count;
    unsigned char *base = cq_addr(h->win, 0);
    if (h->type == CQ_MSG_PACKED) {
        const uint32_t *disp = (const uint32_t *)data;
        const unsigned char *v = data + (size_t)n * 4;
        if (h->slot == CQ_S_ADD && h->esize == 8) {
            uint64_t v64;
            memcpy(&v64, v, 8);
            apply_add64_packed(base, disp, v64, n, cq_atomic_apply);
            return;
        }
        for (uint32_t i = 0; i < n; i++)
            apply_one(base + disp[i], h->slot, h->esize, v, cq_atomic_apply);
        return;
    }
    if (h->slot == CQ_S_PUT && h->tidx == SHMEMI_XT_BYTES) {
        cq_apply_puts(base, data, n);
        return;
    }
    if (h->slot == CQ_S_PUT) { /* one-element typed puts: displacements, then values */
        cq_apply_typed_puts(base, (const uint64_t *)(const void *)data, data + (size_t)n * 8, n,
                            h->esize);
        return;
    }
    cq_apply_atomics(base, h->slot, h->esize, (const uint64_t *)data, data + (size_t)n * 8, n,
                     cq_atomic_apply);
}
