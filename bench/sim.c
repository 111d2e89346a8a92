/* bench/sim.c: the dry-run simulator's core (sim.h). One flush of every virtual PE,
 * node by node, so the working set is O(P) words whatever the traffic:
 *   pushes: each record checks the logical room (out_len[d] + elem <= room, else FULL,
 *     as shmem_queue_data_push) and, routed, lands in the porter buffer serving d
 *     (sim_porter), extending the last run or starting one (dq_plan_run_*), the buffer
 *     growing as rt_reserve grows it (dq_plan_grow);
 *   direct: every destination with bytes is one message of its bytes (the pair moves
 *     dq_plan_direct_moves(out, free): all of it, as every room is empty at the start);
 *   routed: hop 1 sends one record (dq_plan_rec_bytes) per destination to its porter
 *     (dq_plan_porter), hop 2 sends each porter's records grouped by destination node
 *     (dq_plan_group) to the column peer there (dq_plan_hop_peer);
 *   3hop: hop 1 to the porter dq_plan_group3(d, n, 0), hop 2 grouped by destination
 *     node to the cross peer (dq_plan_group3(d, n, 1), dq_plan_cross_peer), hop 3 from
 *     there to d on its node, grouped by the records' destinations, whichever node
 *     they came from (a P x n bitmap of (hop-3 sender, local rank) pairs).
 * Every flush starts with the incoming side empty (the program popped everything, as
 * bench/histogram does), so nothing overflows at the receiver. */
#include "sim.h"
#include "../src/queue/dq_plan.h"
#include <stdlib.h>
#include <string.h>

struct sim {
    sim_cfg_t c;
    int nn;
    uint64_t *out_len; /* P: one source's outgoing bytes per destination (scratch) */
    int *touched;      /* destinations with bytes, in first-push order */
    uint64_t *porter_len; /* n: one source's porter-buffer bytes */
    uint64_t *cap_all; /* P: routed, the sum of a PE's porter capacities (see sim_flush) */
    int64_t *plast;    /* n: last run's destination per porter, -1 none */
    uint32_t *plast_bytes;
    uint64_t *hop1;    /* n: one source's hop-1 bytes per porter */
    uint32_t *stamp;   /* P = n x nodes: (porter l, dest node K) seen in this node's flush
                          (3hop: dest node K alone, its porter being K mod n) */
    int w;             /* 3hop: words of an n-bit row */
    uint64_t *h3;      /* 3hop: P rows, bit m of PE p's: p sends to local rank m in hop 3 */
    uint64_t *nodep;   /* 3hop: P rows, the node's PEs p meets in hop 1 or hop 3 */
};

/* The porter (local rank on the sender's node) whose buffer takes a push for d. */
static int sim_porter(const sim_cfg_t *c, int d)
{
    return c->hops == 3 ? dq_plan_group3(d, c->n, 0) : dq_plan_porter(d, c->n);
}

/* Set bit i of an n-bit row; whether it was set already. */
static int bit_set(uint64_t *row, int i)
{
    uint64_t b = (uint64_t)1 << (i % 64);
    int was = (row[i / 64] & b) != 0;
    row[i / 64] |= b;
    return was;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int sim_pick(uint64_t seed, int npes, int n, int hot_pct, int f, int src, int i)
{
    uint64_t h = mix(seed ^ mix(((uint64_t)(uint32_t)f << 32) ^ (uint32_t)src) ^
                     ((uint64_t)(uint32_t)i << 20));
    if (hot_pct && (int)((h >> 40) % 100) < hot_pct)
        return (int)(h % (uint64_t)n); /* node 0 */
    return (int)(h % (uint64_t)npes);
}

int sim_dest(const sim_cfg_t *c, int f, int src, int i)
{
    return sim_pick(c->seed, c->npes, c->n, c->hot_pct, f, src, i);
}

sim_t *sim_new(const sim_cfg_t *c)
{
    if (c->npes < 1 || c->n < 1 || c->npes % c->n || c->hops < 1 || c->hops > 3 ||
        c->records < 0 || c->elem == 0 || c->room < c->elem)
        return NULL;
    sim_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->c = *c;
    s->nn = c->npes / c->n;
    size_t P = (size_t)c->npes, n = (size_t)c->n;
    s->out_len = calloc(P, sizeof *s->out_len);
    s->touched = malloc(((size_t)c->records + 1) * sizeof *s->touched);
    s->porter_len = calloc(n, sizeof *s->porter_len);
    s->cap_all = calloc(P, sizeof *s->cap_all);
    s->plast = malloc(n * sizeof *s->plast);
    s->plast_bytes = calloc(n, sizeof *s->plast_bytes);
    s->hop1 = calloc(n, sizeof *s->hop1);
    s->stamp = calloc(P, sizeof *s->stamp);
    if (c->hops == 3) {
        s->w = (c->n + 63) / 64;
        s->h3 = malloc(P * (size_t)s->w * sizeof *s->h3);
        s->nodep = malloc(P * (size_t)s->w * sizeof *s->nodep);
    }
    if (!s->out_len || !s->touched || !s->porter_len || !s->cap_all ||
        !s->plast || !s->plast_bytes || !s->hop1 || !s->stamp ||
        (c->hops == 3 && (!s->h3 || !s->nodep))) {
        sim_free(s);
        return NULL;
    }
    return s;
}

void sim_free(sim_t *s)
{
    if (!s)
        return;
    free(s->out_len), free(s->touched), free(s->porter_len);
    free(s->cap_all), free(s->plast), free(s->plast_bytes), free(s->hop1), free(s->stamp);
    free(s->h3), free(s->nodep);
    free(s);
}

/* Set bits of a word (a loop: C11 has no popcount). */
static uint32_t bits_count(uint64_t x)
{
    uint32_t c = 0;
    for (; x; x &= x - 1)
        c++;
    return c;
}

void sim_flush(sim_t *s, int f, sim_pe_t *pe, uint64_t *fanin)
{
    const sim_cfg_t *c = &s->c;
    const int P = c->npes, n = c->n, nn = s->nn, routed = c->hops > 1, three = c->hops == 3;
    const size_t w = (size_t)s->w;
    memset(pe, 0, (size_t)P * sizeof *pe);
    memset(fanin, 0, (size_t)nn * sizeof *fanin);
    memset(s->stamp, 0, (size_t)P * sizeof *s->stamp);
    if (three) {
        memset(s->h3, 0, (size_t)P * w * sizeof *s->h3);
        memset(s->nodep, 0, (size_t)P * w * sizeof *s->nodep);
    }
    for (int k = 0; k < nn; k++) {
        uint32_t gen = (uint32_t)k + 1;
        for (int j = 0; j < n; j++) {
            const int src = k * n + j;
            sim_pe_t *me = &pe[src];
            int nt = 0;
            for (int l = 0; l < n; l++)
                s->plast[l] = -1, s->porter_len[l] = 0, s->hop1[l] = 0;
            /* the pushes */
            for (int i = 0; i < c->records; i++) {
                int d = sim_dest(c, f, src, i);
                if (s->out_len[d] + c->elem > c->room) {
                    me->full++;
                    continue;
                }
                if (s->out_len[d] == 0)
                    s->touched[nt++] = d;
                s->out_len[d] += c->elem;
                if (routed) {
                    int l = sim_porter(c, d);
                    if (s->plast[l] >= 0 &&
                        dq_plan_run_extends((uint32_t)s->plast[l], s->plast_bytes[l], d, c->elem)) {
                        s->porter_len[l] += c->elem;
                        s->plast_bytes[l] += (uint32_t)c->elem;
                    } else {
                        s->porter_len[l] += dq_plan_run_bytes(c->elem);
                        s->plast[l] = d;
                        s->plast_bytes[l] = (uint32_t)c->elem;
                    }
                }
            }
            /* the flush */
            uint64_t hw = 0;
            for (int t = 0; t < nt; t++) {
                int d = s->touched[t];
                uint64_t len = dq_plan_direct_moves(s->out_len[d], c->room); /* rooms empty */
                s->out_len[d] = 0;
                me->bytes += len;
                int K = dq_plan_node(d, n);
                if (!routed) {
                    me->msgs++;
                    me->wire_sent += len;
                    pe[d].recv1++;
                    pe[d].wire_recv += len;
                    if (len > hw)
                        hw = len;
                    if (K != k)
                        fanin[K]++;
                    continue;
                }
                uint64_t rb = dq_plan_rec_bytes(len);
                int l = sim_porter(c, d);
                s->hop1[l] += rb;
                /* the porter (k, l) forwards it to node K: along column l, or (3hop) to
                 * its cross peer there; one message per (porter, node) */
                sim_pe_t *po = &pe[dq_plan_hop_peer(0, l, n, k, j)];
                int to;
                size_t key;
                if (three) {
                    to = dq_plan_cross_peer(dq_plan_group3(d, n, 1), n, k, l);
                    key = (size_t)K; /* l is K mod n */
                } else {
                    to = dq_plan_hop_peer(1, dq_plan_group(d, n, 1), n, k, l);
                    key = (size_t)l * nn + K;
                }
                po->wire2_sent += rb;
                pe[to].wire2_recv += rb;
                if (s->stamp[key] != gen) {
                    s->stamp[key] = gen;
                    po->msgs2++;
                    pe[to].recv2++;
                    if (K != k)
                        fanin[K]++;
                    if (K == k)
                        po->flags |= 2; /* the porter sends to itself in hop 2 */
                }
                if (three) { /* hop 3: from `to` to d, both on node K */
                    pe[to].wire3_sent += rb;
                    pe[d].wire3_recv += rb;
                    if (!bit_set(&s->h3[(size_t)to * w], dq_plan_group3(d, n, 2))) {
                        pe[to].msgs3++;
                        pe[d].recv3++;
                    }
                }
            }
            if (routed) {
                uint64_t cap = 0;
                for (int l = 0; l < n; l++) {
                    /* a porter buffer: proom at create, grown to this flush's fill. The
                     * queue keeps each buffer's capacity; keeping P x n capacities would
                     * cost 512 MB at 1M PEs, so the sum is kept: exact for the first
                     * flush, a lower bound after (a sum of maxima >= the max of sums) */
                    cap += dq_plan_grow(c->proom, s->porter_len[l]);
                    if (!s->hop1[l])
                        continue;
                    me->msgs1++;
                    me->wire_sent += s->hop1[l];
                    sim_pe_t *po = &pe[dq_plan_hop_peer(0, l, n, k, j)];
                    po->recv1++;
                    po->wire_recv += s->hop1[l];
                    po->buf_hw += s->hop1[l];
                    if (three)
                        bit_set(&s->nodep[(size_t)src * w], l);
                }
                if (cap > s->cap_all[src])
                    s->cap_all[src] = cap;
                me->buf_bytes = s->cap_all[src];
                if (s->hop1[j])
                    me->flags |= 1; /* this PE is its own porter in hop 1 */
            } else {
                me->buf_hw = hw;
                me->buf_bytes = 2 * (uint64_t)P * c->room;
            }
        }
    }
    if (three)
        for (int p = 0; p < P; p++) {
            /* rt_count_hop numbers hop 1's and hop 3's peers by local rank, and a cross
             * peer that is this PE by its own: the node's peers are one union */
            sim_pe_t *me = &pe[p];
            uint64_t *row = &s->nodep[(size_t)p * w], *r3 = &s->h3[(size_t)p * w];
            int xself = (me->flags & 2) != 0;
            if (xself)
                bit_set(row, dq_plan_lr(p, n));
            uint32_t np = 0;
            for (size_t i = 0; i < w; i++)
                np += bits_count(row[i] | r3[i]);
            me->msgs = me->msgs1 + me->msgs2 + me->msgs3;
            me->peers = np + me->msgs2 - (uint32_t)xself;
        }
    else if (routed)
        for (int p = 0; p < P; p++) {
            sim_pe_t *me = &pe[p];
            int both = me->flags == 3;
            me->msgs = me->msgs1 + me->msgs2;
            me->peers = me->msgs1 + me->msgs2 - (both ? 1 : 0);
        }
    else
        for (int p = 0; p < P; p++)
            pe[p].peers = pe[p].msgs, pe[p].msgs1 = pe[p].msgs;
}
