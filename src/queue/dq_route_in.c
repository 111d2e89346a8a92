/*
 * dq_route_in.c: the incoming side of a routed data queue (dq_route.h): the list of
 * sources that have data, ascending by source, instead of four P-long arrays. A flush
 * compacts it (step 1) and merges what arrived into it (step 6); pops find a source by
 * binary search, or, for SHMEM_QUEUE_ANY_PE, walk it from the first source not known
 * to be empty, lowest source first (the spec's order).
 *
 * Every list is sized by the sources that delivered data and are not popped empty
 * before the next flush, so a PE that hears from few sources holds little.
 */
#include "dq_route.h"

static const char *const in_routine = "shmem_queue_global_flush";

int shmemi_queue_data_route_reserve(struct shmemq_dataq_rbuf *b, size_t extra)
{
    if (extra <= b->cap - b->len)
        return 0;
    size_t cap = dq_plan_grow(b->cap, b->len + extra); /* first: exactly */
    size_t kept = 0;
    char *p = shmemi_queue_data_rbuf_take(b->len + extra, &kept); /* dq_bufcache.c */
    if (p) {
        if (b->len)
            memcpy(p, b->p, b->len);
        shmemi_queue_data_rbuf_give(b->p, b->cap);
        b->p = p;
        b->cap = kept;
        return 0;
    }
    p = realloc(b->p, cap);
    if (p == NULL)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

void shmemi_queue_data_route_reserve_or_die(struct shmemq_dataq_rbuf *b, size_t extra)
{
    if (shmemi_queue_data_route_reserve(b, extra) != 0)
        shmemi_fatal(in_routine, "out of memory for %zu bytes of routed data-queue staging",
                     b->len + extra);
}

/* Grow an array of `size`-byte items to hold `want`: 0, or -1 (unchanged). */
static int in_grow(void **a, uint32_t *cap, uint32_t want, size_t size)
{
    if (want <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 16;
    while (c < want)
        c = c > UINT32_MAX / 2 ? want : 2 * c;
    void *p = realloc(*a, (size_t)c * size);
    if (p == NULL)
        return -1;
    *a = p;
    *cap = c;
    return 0;
}

void shmemi_queue_data_route_in_compact(struct shmemi_dataq *q)
{
    struct shmemi_dq_route *rt = q->rt;
    uint32_t j = 0;
    for (uint32_t i = 0; i < rt->nsrc; i++) {
        struct dq_src e = rt->src[i];
        if (e.len == 0) { /* popped empty: gone */
            if (e.cap)
                free(e.at);
            continue;
        }
        if (e.cap == 0) { /* a record of the staging about to be reused: copy it out */
            char *p = malloc(e.len);
            if (p == NULL)
                shmemi_fatal(in_routine, "out of memory keeping %zu unpopped bytes", e.len);
            memcpy(p, e.at + e.head, e.len);
            e.at = p;
            e.cap = e.len;
        } else if (e.head) {
            memmove(e.at, e.at + e.head, e.len);
        }
        e.head = 0;
        rt->src[j++] = e;
    }
    rt->nsrc = j;
    rt->any = 0;
}

static int in_cmp_arr(const void *a, const void *b)
{
    int x = ((const struct dq_arr *)a)->s, y = ((const struct dq_arr *)b)->s;
    return x < y ? -1 : x > y;
}

/* Append what fits of a record of `bytes` at rec to e (room: the logical capacity);
 * returns the bytes taken. The first data of an empty FIFO with no memory of its own
 * borrows the record where it lies. */
static size_t in_take(struct dq_src *e, char *rec, size_t bytes, size_t room)
{
    size_t free_b = room - e->len, acc = bytes < free_b ? bytes : free_b;
    if (acc == 0)
        return 0;
    if (e->len == 0 && e->cap == 0) {
        e->at = rec;
        e->head = 0;
        e->len = acc;
        return acc;
    }
    size_t need = e->head + e->len + acc; /* head is 0 after compact, unless borrowed */
    if (e->cap == 0) { /* borrowed and not empty: cannot happen after compact; copy */
        char *p = malloc(e->len + acc);
        if (p == NULL)
            return 0; /* the sender keeps it, as if the room were full */
        memcpy(p, e->at + e->head, e->len);
        e->at = p, e->head = 0, e->cap = e->len + acc;
        need = e->len + acc;
    } else if (need > e->cap) {
        size_t cap = e->cap;
        while (cap < need)
            cap *= 2;
        if (cap > room)
            cap = room > need ? room : need;
        char *p = realloc(e->at, cap);
        if (p == NULL)
            return 0; /* no memory: the sender keeps it, as if the room were full */
        e->at = p, e->cap = cap;
    }
    memcpy(e->at + e->head + e->len, rec, acc);
    e->len += acc;
    return acc;
}

int shmemi_queue_data_route_in_deliver(struct shmemi_dataq *q, struct shmemq_dataq_rbuf *acks)
{
    struct shmemi_dq_route *rt = q->rt;
    struct shmemq_dataq_rbuf *st = &rt->st[1];
    struct dq_rec r;
    /* the arrivals: one record per source, in source grid order (hop 2 from the nodes
     * in order, each porter's records by sender's local rank) */
    uint32_t na = 0;
    int sorted = 1;
    for (size_t o = 0; o < st->len; o += sizeof r + r.bytes) {
        memcpy(&r, st->p + o, sizeof r);
        if (in_grow((void **)&rt->arr, &rt->arrcap, na + 1, sizeof *rt->arr) != 0)
            shmemi_fatal(in_routine, "out of memory for the list of %u arrivals", na + 1);
        sorted &= na == 0 || rt->arr[na - 1].s < (int)r.from;
        rt->arr[na++] = (struct dq_arr){(int)r.from, o};
    }
    if (!sorted) /* a team that is not node-major: grid order is not source order */
        qsort(rt->arr, na, sizeof *rt->arr, in_cmp_arr);
    /* both lists the same size, so they swap without growing at the next flush */
    if (in_grow((void **)&rt->src2, &rt->src2cap, rt->nsrc + na, sizeof *rt->src2) != 0 ||
        in_grow((void **)&rt->src, &rt->srccap, rt->src2cap, sizeof *rt->src) != 0)
        shmemi_fatal(in_routine, "out of memory for the list of %u sources", rt->nsrc + na);
    /* merge the arrivals into the list of sources, both ascending */
    uint32_t i = 0, a = 0, m = 0;
    int overflow = 0;
    while (i < rt->nsrc || a < na) {
        if (a == na || (i < rt->nsrc && rt->src[i].s < rt->arr[a].s)) {
            rt->src2[m++] = rt->src[i++];
            continue;
        }
        struct dq_src e = {rt->arr[a].s, 0, 0, 0, NULL};
        if (i < rt->nsrc && rt->src[i].s == e.s)
            e = rt->src[i++];
        char *rec = st->p + rt->arr[a].off;
        memcpy(&r, rec, sizeof r);
        size_t acc = in_take(&e, rec + sizeof r, (size_t)r.bytes, q->h.room);
        rt->in_total += acc;
        if (e.len || e.cap)
            rt->src2[m++] = e;
        if (acc < r.bytes) {
            /* the tail goes back with the acknowledgement: the sender's staging that
             * held it is reused by then */
            struct dq_rec ack = {(uint32_t)e.s, (uint32_t)q->me, r.bytes - acc};
            overflow = 1;
            if (shmemi_queue_data_route_reserve(acks, sizeof ack + ack.bytes) != 0)
                shmemi_fatal(in_routine, "out of memory for an overflow acknowledgement");
            memcpy(acks->p + acks->len, &ack, sizeof ack);
            memcpy(acks->p + acks->len + sizeof ack, rec + sizeof r + acc, ack.bytes);
            acks->len += sizeof ack + ack.bytes;
        }
        a++;
    }
    struct dq_src *t = rt->src;
    uint32_t tc = rt->srccap;
    rt->src = rt->src2, rt->srccap = rt->src2cap, rt->nsrc = m;
    rt->src2 = t, rt->src2cap = tc;
    rt->any = 0;
    return overflow;
}

/* The entry of source s, or NULL. */
static struct dq_src *in_find(const struct shmemi_dq_route *rt, int s)
{
    uint32_t lo = 0, hi = rt->nsrc;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rt->src[mid].s < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rt->nsrc && rt->src[lo].s == s ? &rt->src[lo] : NULL;
}

static void in_take_from(struct shmemi_dq_route *rt, struct dq_src *e, char *dest, size_t b)
{
    memcpy(dest, e->at + e->head, b);
    e->len -= b;
    e->head = e->len ? e->head + b : 0; /* a routed flush is never in flight here */
    rt->in_total -= b;
}

int shmemi_queue_data_route_pop(struct shmemi_dataq *q, void *dest, size_t bytes, int pe)
{
    struct shmemi_dq_route *rt = q->rt;
    char *d = (char *)dest;
    if (pe != SHMEM_QUEUE_ANY_PE) {
        struct dq_src *e = in_find(rt, pe);
        if (e == NULL || e->len < bytes)
            return SHMEM_QUEUE_ERR_EMPTY;
        in_take_from(rt, e, d, bytes);
        return 0;
    }
    if (rt->in_total < bytes) /* every source before src[any] is empty */
        return SHMEM_QUEUE_ERR_EMPTY;
    while (rt->any < rt->nsrc && rt->src[rt->any].len == 0)
        rt->any++;
    for (uint32_t i = rt->any; i < rt->nsrc && bytes; i++) {
        struct dq_src *e = &rt->src[i];
        size_t b = e->len < bytes ? e->len : bytes;
        if (b) {
            in_take_from(rt, e, d, b);
            d += b;
            bytes -= b;
        }
    }
    return 0;
}

size_t shmemi_queue_data_route_in_len(const struct shmemi_dq_route *rt, int pe)
{
    if (pe == SHMEM_QUEUE_ANY_PE)
        return rt->in_total;
    const struct dq_src *e = in_find(rt, pe);
    return e ? e->len : 0;
}

uint64_t shmemi_queue_data_route_in_bytes(const struct shmemi_dq_route *rt)
{
    uint64_t b = (uint64_t)rt->srccap * sizeof *rt->src +
                 (uint64_t)rt->src2cap * sizeof *rt->src2 +
                 (uint64_t)rt->arrcap * sizeof *rt->arr;
    for (uint32_t i = 0; i < rt->nsrc; i++)
        b += rt->src[i].cap; /* 0: none, or a record in the staging (borrowed) */
    return b;
}

void shmemi_queue_data_route_in_free(struct shmemi_dq_route *rt)
{
    for (uint32_t i = 0; i < rt->nsrc; i++)
        if (rt->src[i].cap)
            free(rt->src[i].at);
    free(rt->src), free(rt->src2), free(rt->arr);
    rt->src = rt->src2 = NULL;
    rt->arr = NULL;
    rt->nsrc = rt->srccap = rt->src2cap = rt->arrcap = 0;
}
