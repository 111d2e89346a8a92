/* xport_am_burst.c: the comm queue's bursts as AM requests (xport_am.h's shmemi_am_burst).
 *
 * A burst to a PE off the node becomes one request to the server of the target's node:
 * its header, then the burst's own arrays as the queue wrote them (offsets, operands, or
 * the PUTS record stream), so the server applies it in record order (xport_am_serve.c).
 * Atomic bursts whose offsets fit 32 bits leave packed (AM_BURSTP: 4 bytes a record, one
 * operand); typed put and get bursts whose offsets fit 32 bits carry them as uint32
 * (AM_BTPUTP, AM_BTGETP: a quarter fewer bytes a put, half a get request's). A tagged
 * (node-routed) burst, whose displacements' top bits name the PE of the node, packs the
 * same way with its tags after the offsets as uint16 node ranks. Get bursts
 * go to the origin side (shmemi_am_burst_get, xport_am.c), which keeps their replies in
 * flight until the queue's completion. The send, its lock and the flow control are the
 * origin side's. */
#include "xport.h"
#include "xport_am_proto.h"

/* bursts sent as they are and packed: atomic, typed put, typed get (shmemi_am_burst_stats) */
static uint64_t bursts[6];

/* Bytes of a PUTS record stream of n records, and the payload bytes in it. */
static size_t puts_stream(const unsigned char *p, uint32_t n, size_t *bytes)
{
    size_t off = 0;
    *bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t len;
        memcpy(&len, p + off + 8, 8);
        *bytes += len;
        off += 16 + ((len + 7) & ~(uint64_t)7);
    }
    return off;
}

/* An atomic burst as AM_BURSTP: 4 bytes a record on the wire instead of 12 or 16, and a
 * quarter of the bytes for the server to read; its one operand follows. */
static unsigned char *burst_pack(const shmemi_xp_burst_t *b, am_req_t *h, size_t *n)
{
    h->kind = AM_BURSTP;
    __atomic_add_fetch(&bursts[1], 1, __ATOMIC_RELAXED);
    return shmemi_am_req_narrow(h, b->disp, b->n, b->elems, b->esize, n);
}

/* Typed puts with uint32 displacements (AM_BTPUTP); the values follow unaligned. */
static unsigned char *btput_pack(const shmemi_xp_burst_t *b, am_req_t *h, size_t *n)
{
    h->kind = AM_BTPUTP;
    return shmemi_am_req_narrow(h, b->disp, b->n, b->elems, (size_t)b->n * b->esize, n);
}

void shmemi_am_burst_stats(uint64_t out[6])
{
    for (int i = 0; i < 6; i++)
        out[i] = __atomic_load_n(&bursts[i], __ATOMIC_RELAXED);
}

size_t shmemi_am_burst(const shmemi_xp_burst_t *b, shmemi_xp_status_t *st)
{
    am_req_t h;
    memset(&h, 0, sizeof h);
    h.region = (uint8_t)b->region;
    h.size = (uint8_t)b->esize;
    h.pe = b->pe;
    h.tagged = (uint8_t)(b->tagged != 0);
    h.len = b->n;
    const void *a = b->disp, *e = b->elems;
    size_t na = (size_t)b->n * 8, ne = (size_t)b->n * b->esize, bytes = ne, n;
    unsigned char *buf = NULL;
    switch (b->kind) {
    case SHMEMI_XB_ATOMICS:
        h.kind = AM_BURST;
        h.op = (uint8_t)b->op;
        if (b->tagged) {
            /* shmemi_burst_packable's test of the offsets would see the tags */
            if (shmemi_burst_uniform(b->elems, b->esize, b->n) &&
                shmemi_burst_disp32_tagged(b->disp, b->n)) {
                h.kind = AM_BURSTP;
                __atomic_add_fetch(&bursts[1], 1, __ATOMIC_RELAXED);
                buf = shmemi_am_req_narrow_tagged(&h, b->disp, b->n, b->elems, b->esize, &n);
            } else
                __atomic_add_fetch(&bursts[0], 1, __ATOMIC_RELAXED);
        } else if (shmemi_burst_packable(b->disp, b->elems, b->esize, b->n))
            buf = burst_pack(b, &h, &n);
        else
            __atomic_add_fetch(&bursts[0], 1, __ATOMIC_RELAXED);
        break;
    case SHMEMI_XB_TYPED_PUTS:
        h.kind = AM_BTPUT;
        if (b->tagged && shmemi_burst_disp32_tagged(b->disp, b->n)) {
            h.kind = AM_BTPUTP;
            buf = shmemi_am_req_narrow_tagged(&h, b->disp, b->n, b->elems,
                                              (size_t)b->n * b->esize, &n);
        } else if (!b->tagged && shmemi_burst_disp32(b->disp, b->n)) {
            buf = btput_pack(b, &h, &n);
        }
        __atomic_add_fetch(&bursts[2 + (buf != NULL)], 1, __ATOMIC_RELAXED);
        break;
    case SHMEMI_XB_PUTS:
        h.kind = AM_BPUT;
        a = b->records;
        na = puts_stream(b->records, b->n, &bytes);
        e = NULL;
        ne = 0;
        break;
    case SHMEMI_XB_TYPED_GETS: {
        int packed = b->tagged ? shmemi_burst_disp32_tagged(b->disp, b->n)
                               : shmemi_burst_disp32(b->disp, b->n);
        h.kind = packed ? AM_BTGETP : AM_BTGET;
        __atomic_add_fetch(&bursts[4 + packed], 1, __ATOMIC_RELAXED);
        return shmemi_am_burst_get(b, &h, st);
    }
    default:
        h.kind = AM_BGET;
        return shmemi_am_burst_get(b, &h, st);
    }
    if (!buf)
        buf = shmemi_am_req_copy(&h, a, na, e, ne, &n);
    int server = shmemi_am.server[b->pe];
    shmemi_am_lock();
    int rc = shmemi_am_send_owned(server, &h, buf, n);
    shmemi_am_unlock();
    if (rc != MPI_SUCCESS) {
        am_burst_note(st, rc, "MPI_Isend");
        return 0;
    }
    shmemi_am_burst_throttle(server);
    return bytes;
}
