/* bench/simulate.c: the data queue's dry-run simulator (issue 23; docs/scaling.md,
 * "The simulator"). P virtual PEs in one process, no MPI: bench/sim.c plans each flush
 * with the queues' own code (src/queue/dq_plan.h) for direct mode (one flat
 * MPI_Alltoallv), routed mode (SHMEMQ_DATAQ_ROUTE=2hop) and its three-hop variant
 * (3hop, mode "routed3"), on a workload like bench/histogram's: R records of E bytes
 * per PE per flush to uniform random destinations, or with a hot node (-H pct: that
 * share of records to node 0's PEs).
 *
 * Per (workload, mode, P), over PEs and flushes, min/mean/max of: messages sent per
 * flush (all hops, as shmemx_queue_usage's msgs_last) and per hop, messages received
 * per hop, distinct peers, own payload bytes, bytes on the wire per hop, porter staging
 * (routed: hop-1 bytes a porter receives) or the fullest room (direct); per node the
 * fan-in (messages arriving at the node's PEs from other nodes); buffer bytes (routed:
 * porter buffers as grown; direct: the 2P rooms); the model's bytes per PE
 * (shmemx_queue_model, data modes need no shmem_init); a LogGP estimate of the flush
 * time (see loggp_flush below and docs/scaling.md for the parameters and limits), and
 * for direct mode also of the sparse exchange's (flush_time_nbx: SHMEMQ_DATAQ_EXCHANGE=
 * nbx, docs/data_queues.md "Sparse flushes (NBX)").
 *
 * -k comm: the comm queue instead (bench/cqsim.c, the queue's own rules from
 * src/queue/cq_plan.h): R ADDs of E bytes per PE per flush into one ATOMIC_ADD queue
 * (-K k: k op kinds in turn, a SHMEM_OP_ANY queue; RMA path, the default), per PE bursts, payload bytes, distinct peers, node bursts,
 * chunks issued early by the budget (-B bytes per op kind; default the queue's 64M),
 * chunks held, per node the fan-in, and a LogGP estimate of the flush (run_comm below).
 * -R node (or both): node-routed queues (SHMEMQ_QUEUE_ROUTE=node: a chunk per other node,
 * sent to its lowest PE; budget default 8M), mode "comm_node" in the CSV.
 *
 * Output: one line per result with its unit, then (-c FILE, or stdout after a line
 * "CSV") one CSV line per (workload, mode, P, metric):
 *   workload,mode,npes,node_pes,records,elem,metric,unit,min,mean,max
 * (mode direct, routed or routed3, as -m picks; -m both, the default, is direct and
 * routed, -m all adds routed3; "comm_rma" or "comm_node" for -k comm).
 */
#include <shmemx.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "cqsim.h"
#include "../src/queue/cq_plan.h"
#include "../src/queue/dq_plan.h" /* the hop rule the time model follows */

/* LogGP parameters, seconds and seconds per byte. */
typedef struct {
    double L, o, g, G;
} loggp_t;

/* Defaults (docs/scaling.md, "Time model"): the network's L and G are published
 * figures (Cray XT3/SeaStar, Brightwell et al., "Portals 3.3 on the Sandia/Cray Red
 * Storm system", IPDPS 2005: MPI one-way latency 2 us nearest, 5 us farthest; 1.5 GB/s
 * per direction per node; L takes the far end); o and g are this machine's MPI
 * overhead and gap per message (bench/loggp, MPICH ch4:ucx, 2 ranks, loaded machine).
 * On the node: bench/loggp's four figures. */
static loggp_t net = {5e-6, 1.67e-6, 2.37e-6, 1.0 / 1.5e9};
static loggp_t node = {2.12e-6, 1.67e-6, 2.37e-6, 1.0 / 0.37e9}; /* bench/loggp, loaded */

static int parse_loggp(const char *s, loggp_t *p)
{
    double v[4];
    if (sscanf(s, "%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3]) != 4)
        return -1;
    /* microseconds and GB/s on the command line */
    p->L = v[0] * 1e-6, p->o = v[1] * 1e-6, p->g = v[2] * 1e-6, p->G = 1.0 / (v[3] * 1e9);
    return 0;
}

/* One exchange phase: every PE sends ms messages of bs bytes in total and receives mr
 * of br; the phase ends when the slowest PE is done. */
static double phase(const loggp_t *p, double ms, double mr, double bs, double br)
{
    double m = ms > mr ? ms : mr, b = bs > br ? bs : br;
    double wire = p->g * m > p->G * b ? p->g * m : p->G * b;
    return p->L + p->o * (ms + mr) + wire;
}

/* The count exchange, an alltoall of w bytes per peer among np ranks: MPICH takes the
 * Bruck algorithm for short blocks, ceil(log2 np) rounds of np/2 blocks. */
static double alltoall_small(const loggp_t *p, int np, double w)
{
    if (np < 2)
        return 0;
    return ceil(log2((double)np)) * (p->L + 2 * p->o + p->G * ceil(np / 2.0) * w);
}

/* Seconds per entry of an array a flush walks (direct: its four P-long count arrays and
 * the per-peer bookkeeping; routed: its per-hop arrays, n + P/n, and its destination
 * table and source list, about R entries each); an assumed 1 ns (a streaming pass of a
 * few words), not measured. */
static double array_entry = 1e-9;

typedef struct {
    double min, sum, max;
    uint64_t n;
} acc_t;

static void acc_add(acc_t *a, double v)
{
    if (a->n == 0 || v < a->min)
        a->min = v;
    if (a->n == 0 || v > a->max)
        a->max = v;
    a->sum += v;
    a->n++;
}

/* What one result line is of: the first six CSV columns. */
typedef struct {
    const char *wl, *mode;
    int P, n, records;
    size_t elem;
} rkey_t;

static void csv_key(FILE *csv, const rkey_t *k)
{
    fprintf(csv, "%s,%s,%d,%d,%d,%zu,", k->wl, k->mode, k->P, k->n, k->records, k->elem);
}

/* A metric's min / mean / max over PEs: one line on stdout, one in the CSV. */
static void put_acc(FILE *csv, const rkey_t *k, const char *name, const char *unit, const acc_t *a)
{
    double mean = a->sum / (double)a->n;
    printf("  %-18s min %12.6g  mean %12.6g  max %12.6g  %s\n", name, a->min, mean, a->max, unit);
    csv_key(csv, k);
    fprintf(csv, "%s,%s,%.9g,%.9g,%.9g\n", name, unit, a->min, mean, a->max);
}

/* The flush time (mean and worst over flushes) and what simulating took, as CSV lines. */
static void put_times(FILE *csv, const rkey_t *k, double mean, double worst, double took)
{
    csv_key(csv, k);
    fprintf(csv, "flush_time,s,%.6g,%.6g,%.6g\n", mean, mean, worst);
    csv_key(csv, k);
    fprintf(csv, "sim_seconds,s,%.3f,%.3f,%.3f\n", took, took, took);
}

/* Bytes from the command line: a number with an optional K, M or G (powers of 1024). */
static uint64_t parse_bytes(const char *v)
{
    char *end;
    uint64_t x = strtoull(v, &end, 0);
    switch (*end) {
    case 'G': case 'g': x <<= 10; /* fall through */
    case 'M': case 'm': x <<= 10; /* fall through */
    case 'K': case 'k': x <<= 10; break;
    default: break;
    }
    return x;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The per-PE results (each of `each` bytes) and per-node fan-in of one P; NULL if short. */
static void *new_results(int P, int n, size_t each, uint64_t **fan)
{
    void *pe = malloc((size_t)P * each);
    *fan = malloc((size_t)(P / n) * sizeof **fan);
    if (pe && *fan)
        return pe;
    free(pe);
    free(*fan);
    return NULL;
}

/* Data-queue metrics; a mode prints those of the hops it has. */
enum { M_MSGS, M_MSGS1, M_MSGS2, M_MSGS3, M_RECV1, M_RECV2, M_RECV3, M_PEERS, M_BYTES,
       M_WIRE1, M_WIRE2, M_WIRE3, M_STAGE, M_BUF, M_FULL, M_FANIN, M_TPE, M_N };
static const char *const mname[M_N] = {
    "msgs_per_flush", "msgs_hop1", "msgs_hop2", "msgs_hop3", "recv_hop1", "recv_hop2",
    "recv_hop3", "peers", "payload_bytes", "wire_bytes_hop1", "wire_bytes_hop2",
    "wire_bytes_hop3", "staging_hw_bytes", "buffer_bytes", "full_pushes", "fanin_per_node",
    "pe_time_s"};
static const char *const munit[M_N] = {
    "msgs", "msgs", "msgs", "msgs", "msgs", "msgs", "msgs", "PEs", "B", "B", "B", "B", "B",
    "B", "pushes", "msgs", "s"};
/* The data modes by hops (1 direct), as the CSV names them. */
static const char *const mode_name[4] = {"", "direct", "routed", "routed3"};

static void usage(void)
{
    fprintf(stderr,
            "usage: simulate [-p P,P,...] [-n PEs per node] [-r records/PE/flush] [-e bytes/record]\n"
            "                [-f flushes] [-H hot-node %% (-1: both uniform and 25%%)]\n"
            "                [-m direct|routed|routed3|both|all, or a comma list\n"
            "                    (both: direct,routed)]\n"
            "                [-s seed] [-b room bytes (0: the queue's default)] [-c CSV file]\n"
            "                [-N L,o,g,GB/s network (us)] [-O L,o,g,GB/s on the node (us)]\n"
            "                [-A ns per P-long array entry per flush]\n"
            "                [-k data|comm] [-B comm budget bytes per op kind, K/M/G (0: none)]\n"
            "                [-C comm chunk setting bytes, K/M/G (RMA path: 64K)]\n"
            "                [-K comm op kinds 1-5: ADD, SET, AND, OR, XOR in turn]\n"
            "                [-R direct|node|both: comm queues direct (default), node-routed\n"
            "                    (SHMEMQ_QUEUE_ROUTE=node: budget default 8M), or both]\n");
}

/* The simulator's own answer check for one flush: every message and wire byte sent was
 * received (per hop), and every record pushed was sent or refused FULL. */
static int balanced(const sim_pe_t *pe, int P, int records, size_t elem)
{
    uint64_t m1 = 0, r1 = 0, m2 = 0, r2 = 0, w1 = 0, v1 = 0, w2 = 0, v2 = 0, pay = 0, full = 0;
    uint64_t m3 = 0, r3 = 0, w3 = 0, v3 = 0;
    for (int p = 0; p < P; p++) {
        m1 += pe[p].msgs1, r1 += pe[p].recv1, m2 += pe[p].msgs2, r2 += pe[p].recv2;
        w1 += pe[p].wire_sent, v1 += pe[p].wire_recv, w2 += pe[p].wire2_sent;
        v2 += pe[p].wire2_recv, pay += pe[p].bytes, full += pe[p].full;
        m3 += pe[p].msgs3, r3 += pe[p].recv3, w3 += pe[p].wire3_sent, v3 += pe[p].wire3_recv;
    }
    return m1 == r1 && m2 == r2 && w1 == v1 && w2 == v2 && m3 == r3 && w3 == v3 &&
           pay + full * elem == (uint64_t)P * (uint64_t)records * elem;
}

/* Comm queue metrics (-k comm). */
enum { K_MSGS, K_NODE, K_PEERS, K_BYTES, K_RECV_OFF, K_EARLY, K_SEL, K_SCAN, K_OPEN, K_CHUNKS,
       K_BUF, K_SWEEP1, K_FANIN, K_TPE, K_N };
static const char *const kname[K_N] = {
    "msgs_per_flush", "node_bursts", "peers", "payload_bytes", "recv_offnode",
    "early_chunks", "budget_selections", "budget_scanned", "open_chunks_hw", "chunks",
    "buffer_bytes", "sweep_first_here", "fanin_per_node", "pe_time_s"};
static const char *const kunit[K_N] = {
    "msgs", "bursts", "PEs", "B", "msgs", "chunks", "shortfalls", "chunks", "chunks",
    "chunks", "B", "origins", "msgs", "s"};

/* One (workload, P) of the comm queue: cqsim flushes, the metrics, the time model. A
 * PE's flush (cq_flush.c): its node bursts are applied by it (o and G on the node per
 * burst and byte); its off-node bursts are one phase like the data queue's (send and
 * receive o, g, G on the network); completion is a flush per off-node peer (o each) and
 * one round trip for the last (2 L + 2 o); the sweep (cq_flush.c) visits P slots per op
 * slot the queue has (1 for one op kind, 7 for SHMEM_OP_ANY), or, when at most a quarter of
 * them are open, sorts the k open chunks (k (1 + log2 k) entries, k the most open at once);
 * every budget shortfall visits its open chunks twice (array entries). The flush ends
 * with its slowest PE. */
/* Array entries a flush's sweep visits (cq_flush.c, cq_issue_all). */
static double sweep_entries(int P, int kinds, uint32_t open)
{
    double slots = (kinds > 1 ? 7.0 : 1.0) * P; /* the sweep visits P PEs in either mode */
    if (open == 0 || 4.0 * open > slots)
        return slots;
    return open * (1.0 + log2((double)open));
}

static int run_comm(FILE *csv, const char *wl, int P, int n, int records, int kinds, size_t elem,
                    int hot, uint64_t seed, int flushes, uint64_t budget_bytes, size_t chunk_c,
                    int node_routed)
{
    size_t cbytes = cq_plan_chunk_bytes(chunk_c, P);
    /* one op kind: an ATOMIC_ADD queue; several: a SHMEM_OP_ANY queue's budget (7 kinds) */
    cqsim_cfg_t c = {P, n, 1, records, kinds, elem, hot, seed, cbytes,
                     cq_plan_budget_chunks(budget_bytes, kinds > 1 ? 7 : 1, cbytes), node_routed};
    const char *mname = node_routed ? "comm_node" : "comm_rma";
    double t0 = now_s();
    uint64_t *fan;
    cqsim_pe_t *pe = new_results(P, n, sizeof *pe, &fan);
    cqsim_t *s = pe ? cqsim_new(&c) : NULL;
    if (!s) {
        fprintf(stderr, "simulate: comm: bad config or out of memory at P %d\n", P);
        if (pe)
            free(pe), free(fan);
        return 1;
    }
    acc_t a[K_N];
    memset(a, 0, sizeof a);
    int status = 0;
    double tflush = 0, tmax = 0;
    for (int f = 0; f < flushes; f++) {
        cqsim_flush(s, f, pe, fan);
        double worst = 0;
        uint64_t sent = 0, recv = 0, bytes = 0;
        for (int p = 0; p < P; p++) {
            const cqsim_pe_t *e = &pe[p];
            double ms = e->msgs - e->msgs_node;
            double t = node.o * e->msgs_node + node.G * (double)e->bytes_node +
                       phase(&net, ms, e->recv_off, (double)(e->bytes - e->bytes_node),
                             (double)e->bytes_recv_off) +
                       (e->peers > e->peers_node ? net.o * (e->peers - e->peers_node) +
                                                       2 * (net.L + net.o) : 0) +
                       (sweep_entries(P, kinds, e->open_hw) + 2.0 * (double)e->scanned) *
                           array_entry;
            if (t > worst)
                worst = t;
            sent += e->msgs, recv += e->recv, bytes += e->bytes;
            acc_add(&a[K_MSGS], e->msgs);
            acc_add(&a[K_NODE], e->msgs_node);
            acc_add(&a[K_PEERS], e->peers);
            acc_add(&a[K_BYTES], (double)e->bytes);
            acc_add(&a[K_RECV_OFF], e->recv_off);
            acc_add(&a[K_EARLY], e->early);
            acc_add(&a[K_SEL], e->selections);
            acc_add(&a[K_SCAN], (double)e->scanned);
            acc_add(&a[K_OPEN], e->open_hw);
            acc_add(&a[K_CHUNKS], (double)e->chunks);
            acc_add(&a[K_BUF], (double)e->chunks * (double)cq_plan_chunk_alloc(cbytes));
            acc_add(&a[K_SWEEP1], e->sweep_first);
            acc_add(&a[K_TPE], t);
        }
        for (int k = 0; k < P / n; k++)
            acc_add(&a[K_FANIN], (double)fan[k]);
        if (sent != recv || bytes != (uint64_t)P * (uint64_t)records * elem) {
            printf("WRONG: %s comm P=%d flush %d: bursts sent %llu, received %llu, bytes %llu\n",
                   wl, P, f, (unsigned long long)sent, (unsigned long long)recv,
                   (unsigned long long)bytes);
            status = 1;
        }
        tflush += worst;
        if (worst > tmax)
            tmax = worst;
    }
    double took = now_s() - t0;
    printf("simulate: %s %s P=%d (%dx%d), %d ops (%d kind(s)) x %zu B per PE, %d "
           "flush(es), chunk %zu B (%zu records), budget %llu chunks, %.2f s\n", wl, mname, P, P / n, n,
           records, kinds, elem, flushes, cbytes, cq_plan_records(cbytes, elem), (unsigned long long)c.budget,
           took);
    const rkey_t key = {wl, mname, P, n, records, elem};
    for (int k = 0; k < K_N; k++)
        put_acc(csv, &key, kname[k], kunit[k], &a[k]);
    printf("  %-18s %.6g s per flush (LogGP, the slowest PE)\n", "flush_time", tflush / flushes);
    printf("  %-18s %.3f s\n", "sim_seconds", took);
    put_times(csv, &key, tflush / flushes, tmax, took);
    fflush(stdout);
    cqsim_free(s);
    free(pe);
    free(fan);
    return status;
}

/* Ranks of the largest cross communicator (dq_route.c's split: a pair of residue
 * classes, this PE's and its peers'): classes 0 and 1, one class when n is 1. A
 * collective cross hop exchanges its counts over all of it (dq_route_hop.c). */
static int cross_comm_max(int nn, int n)
{
    return dq_plan_cross_np(nn, n, 0) + (n > 1 ? dq_plan_cross_np(nn, n, 1) : 0);
}

/* One (workload, mode, P) of the data queue, hops 1 (direct), 2 or 3 (routed): sim
 * flushes, the metrics, the time model. Returns 0, or 1 when a flush did not balance
 * or the run could not be made. */
static int run_data(FILE *csv, const char *wl, int hops, int P, int n, int records,
                    size_t elem, int hot, uint64_t seed, int flushes, size_t room_opt)
{
    const int routed = hops > 1, nn = P / n;
    int status = 0;
    /* the room and the porter buffers as the model (and so the queue) has them */
    shmem_queue_config_t qc;
    memset(&qc, 0, sizeof qc);
    qc.qtype = SHMEM_QUEUE_DATA;
    qc.data_elem_size = elem;
    qc.max_bytes = room_opt;
    qc.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmemx_queue_model_t mf, mr;
    if (shmemx_queue_model(&qc, SHMEMX_QUEUE_MODE_DATA_FLAT, P, n, &mf) ||
        shmemx_queue_model(&qc, hops == 3 ? SHMEMX_QUEUE_MODE_DATA_ROUTED3
                                          : SHMEMX_QUEUE_MODE_DATA_ROUTED,
                           P, n, &mr)) {
        fprintf(stderr, "simulate: shmemx_queue_model refused P %d\n", P);
        return 1;
    }
    sim_cfg_t c = {P, n, hops, records, elem, hot, seed,
                   (size_t)mf.buffer_bytes, (size_t)mr.buffer_bytes};
    double t0 = now_s();
    sim_t *s = sim_new(&c);
    uint64_t *fan;
    sim_pe_t *pe = new_results(P, n, sizeof *pe, &fan);
    if (!s || !pe) {
        fprintf(stderr, "simulate: out of memory at P %d\n", P);
        sim_free(s);
        if (pe)
            free(pe), free(fan);
        return 1;
    }
    acc_t a[M_N];
    memset(a, 0, sizeof a);
    /* tparts: counts, data of hops 1-3, arrays, agreement */
    double tflush = 0, tmax_d = 0, tparts[6] = {0}, tnbx = 0;
    /* how each hop moves its blocks (dq_route.c, route_setup): by its peers, the cross
     * hop's those of the largest, alike on every PE */
    const int xn = dq_plan_cross_np(nn, n, 0);
    const int p1 = dq_plan_hop_p2p(n), p2 = dq_plan_hop_p2p(hops == 3 ? xn : nn);
    for (int f = 0; f < flushes; f++) {
        sim_flush(s, f, pe, fan);
        double worst[3] = {0, 0, 0}; /* per-PE data phases (hops 1-3) */
        double worst_nbx = 0; /* direct, sparse exchange: data, then the acks */
        for (int p = 0; p < P; p++) {
            sim_pe_t *e = &pe[p];
            double t1p, t2p = 0, t3p = 0;
            if (routed) { /* dq_route_hop.c: a point-to-point hop sends every hop peer a
                           * message, empty ones too: the node's n - 1, the column's
                           * P/n - 1, or this PE's cross peers but itself */
                int lr = dq_plan_lr(p, n);
                double m1 = n - 1;
                double m2 = hops == 3 ? dq_plan_cross_np(nn, n, lr) -
                                            (dq_plan_node(p, n) % n == lr)
                                      : P / n - 1;
                t1p = phase(&node, p1 ? m1 : e->msgs1, p1 ? m1 : e->recv1,
                            e->wire_sent, e->wire_recv);
                t2p = phase(&net, p2 ? m2 : e->msgs2, p2 ? m2 : e->recv2,
                            e->wire2_sent, e->wire2_recv);
                if (hops == 3) /* on the destination's node, as hop 1 */
                    t3p = phase(&node, p1 ? m1 : e->msgs3, p1 ? m1 : e->recv3,
                                e->wire3_sent, e->wire3_recv);
            } else {
                t1p = phase(&net, e->msgs1, e->recv1, e->wire_sent, e->wire_recv);
                /* dq_nbx.c: an 8-byte acknowledgement back per message (counted
                 * after the data, not overlapped: pessimistic for NBX) */
                double tn = t1p + phase(&net, e->recv1, e->msgs1, 8.0 * e->recv1,
                                        8.0 * e->msgs1);
                if (tn > worst_nbx) worst_nbx = tn;
            }
            if (t1p > worst[0]) worst[0] = t1p;
            if (t2p > worst[1]) worst[1] = t2p;
            if (t3p > worst[2]) worst[2] = t3p;
            acc_add(&a[M_MSGS], e->msgs);
            acc_add(&a[M_MSGS1], e->msgs1);
            acc_add(&a[M_MSGS2], e->msgs2);
            acc_add(&a[M_MSGS3], e->msgs3);
            acc_add(&a[M_RECV1], e->recv1);
            acc_add(&a[M_RECV2], e->recv2);
            acc_add(&a[M_RECV3], e->recv3);
            acc_add(&a[M_PEERS], e->peers);
            acc_add(&a[M_BYTES], (double)e->bytes);
            acc_add(&a[M_WIRE1], (double)e->wire_sent);
            acc_add(&a[M_WIRE2], (double)e->wire2_sent);
            acc_add(&a[M_WIRE3], (double)e->wire3_sent);
            acc_add(&a[M_STAGE], (double)e->buf_hw);
            acc_add(&a[M_BUF], (double)e->buf_bytes);
            acc_add(&a[M_FULL], e->full);
            acc_add(&a[M_TPE], t1p + t2p + t3p);
        }
        for (int k = 0; k < P / n; k++)
            acc_add(&a[M_FANIN], (double)fan[k]);
        if (!balanced(pe, P, records, elem)) {
            printf("WRONG: %s %s P=%d flush %d: what was sent was not all received, "
                   "or pushes went missing\n", wl, mode_name[hops], P, f);
            status = 1;
        }
        /* the flush: the count exchanges, the data (the slowest PE), the
         * overflow agreement (recursive doubling: log2 P rounds), the walks
         * of arrays (4 per flush: P long in direct mode; routed, the per-hop
         * arrays (3hop: node, cross, node) and the table and list of what the
         * flush touches) */
        double lg = ceil(log2((double)P));
        double agree = lg * (net.L + 2 * net.o + net.g);
        double hop_arrays = hops == 3 ? 2 * n + xn : n + nn;
        double walk = 4.0 * (routed ? hop_arrays + records : P) * array_entry;
        double t;
        if (routed) { /* dq_route.c: the hops in turn (a collective one exchanges its
                       * counts first), then the agreement */
            double c1 = p1 ? 0 : alltoall_small(&node, n, 8);
            double c2 = p2 ? 0 : alltoall_small(&net, hops == 3 ? cross_comm_max(nn, n) : nn, 8);
            double c3 = hops == 3 ? c1 : 0; /* hop 3 runs on the node communicator */
            t = c1 + worst[0] + c2 + worst[1] + c3 + worst[2] + agree + walk;
            tparts[0] += c1 + c2 + c3, tparts[1] += worst[0], tparts[2] += worst[1];
            tparts[3] += worst[2];
        } else { /* dq_flush.c: counts, then the agreement beside the data */
            double c0 = alltoall_small(&net, P, 16);
            t = c0 + (worst[0] > agree ? worst[0] : agree) + walk;
            tparts[0] += c0, tparts[1] += worst[0];
            /* the sparse exchange: no count exchange, one pass over out_len,
             * the closing reduction after the data and acknowledgements */
            tnbx += worst_nbx + agree + P * array_entry;
        }
        tparts[4] += walk;
        tparts[5] += agree;
        tflush += t;
        if (t > tmax_d) tmax_d = t;
    }
    double took = now_s() - t0;
    const char *mode = mode_name[hops];
    const rkey_t key = {wl, mode, P, n, records, elem};
    const shmemx_queue_model_t *m = routed ? &mr : &mf;
    printf("simulate: %s %s P=%d (%dx%d), %d records x %zu B per PE, %d flush(es), "
           "room %zu B, %.2f s\n", wl, mode, P, P / n, n, records, elem, flushes,
           c.room, took);
    for (int k = 0; k < M_N; k++) {
        if ((!routed && (k == M_MSGS2 || k == M_RECV2 || k == M_WIRE2)) ||
            (hops < 3 && (k == M_MSGS3 || k == M_RECV3 || k == M_WIRE3)))
            continue;
        put_acc(csv, &key, mname[k], munit[k], &a[k]);
    }
    double tm = tflush / flushes;
    printf("  %-18s %.6g B per PE (model max_total_bytes)\n", "model_bytes",
           (double)m->max_total_bytes);
    char data3[32] = "";
    if (hops == 3)
        snprintf(data3, sizeof data3, " + %.3g", tparts[3] / flushes);
    printf("  %-18s %.6g s per flush (LogGP: counts %.3g, data %.3g + %.3g%s, "
           "arrays %.3g, agree %.3g)\n", "flush_time", tm, tparts[0] / flushes,
           tparts[1] / flushes, tparts[2] / flushes, data3, tparts[4] / flushes,
           tparts[5] / flushes);
    if (!routed) {
        printf("  %-18s %.6g s per flush (LogGP: data + acknowledgements %.3g, "
               "agree, one P-long pass; SHMEMQ_DATAQ_EXCHANGE=nbx)\n",
               "flush_time_nbx", tnbx / flushes, (tnbx / flushes) -
               tparts[5] / flushes - P * array_entry);
        csv_key(csv, &key);
        fprintf(csv, "flush_time_nbx,s,%.6g,%.6g,%.6g\n", tnbx / flushes,
                tnbx / flushes, tnbx / flushes);
    }
    printf("  %-18s %.3f s\n", "sim_seconds", took);
    csv_key(csv, &key);
    fprintf(csv, "model_bytes,B,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
            m->max_total_bytes, m->max_total_bytes, m->max_total_bytes);
    put_times(csv, &key, tm, tmax_d, took);
    fflush(stdout);
    sim_free(s);
    free(pe);
    free(fan);
    return status;
}

/* -m: a comma list of data modes as a mask of hops (bit h: h hops, 1 direct); both
 * is direct and routed (as before routed3 existed, so scripts keep their meaning),
 * all adds routed3. 0 when a word is unknown. */
static unsigned parse_modes(const char *m)
{
    static const struct {
        const char *name;
        unsigned mask;
    } w[] = {{"direct", 1u << 1}, {"routed", 1u << 2}, {"routed3", 1u << 3},
             {"both", 1u << 1 | 1u << 2}, {"all", 1u << 1 | 1u << 2 | 1u << 3}};
    unsigned mask = 0;
    char *dup = strdup(m), *save = NULL;
    for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < sizeof w / sizeof w[0] && strcmp(t, w[i].name))
            i++;
        if (i == sizeof w / sizeof w[0]) {
            mask = 0;
            break;
        }
        mask |= w[i].mask;
    }
    free(dup);
    return mask;
}

int main(int argc, char **argv)
{
    const char *plist = "1024,10240,102400", *csvf = NULL, *modes = "both";
    int npn = 64, records = 1024, flushes = 1, hot = -1, opt;
    size_t elem = 8, room_opt = 0, chunk_c = 65536;
    uint64_t seed = 1, budget = CQ_PLAN_BUDGET_DEFAULT;
    const char *kind = "data";
    int kinds = 1, budget_given = 0, croute = 1; /* -R: bit 0 direct, bit 1 node-routed */
    while ((opt = getopt(argc, argv, "p:n:r:e:f:H:m:s:b:c:N:O:A:k:B:C:K:R:h")) != -1) {
        switch (opt) {
        case 'p': plist = optarg; break;
        case 'n': npn = atoi(optarg); break;
        case 'r': records = atoi(optarg); break;
        case 'e': elem = (size_t)strtoull(optarg, NULL, 0); break;
        case 'f': flushes = atoi(optarg); break;
        case 'H': hot = atoi(optarg); break;
        case 'm': modes = optarg; break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'b': room_opt = (size_t)strtoull(optarg, NULL, 0); break;
        case 'c': csvf = optarg; break;
        case 'N': if (parse_loggp(optarg, &net)) { usage(); return 2; } break;
        case 'O': if (parse_loggp(optarg, &node)) { usage(); return 2; } break;
        case 'A': array_entry = atof(optarg) * 1e-9; break;
        case 'k': kind = optarg; break;
        case 'B': budget = parse_bytes(optarg); budget_given = 1; break;
        case 'R': croute = !strcmp(optarg, "direct") ? 1 : !strcmp(optarg, "node") ? 2
                         : !strcmp(optarg, "both") ? 3 : 0; break;
        case 'C': chunk_c = (size_t)parse_bytes(optarg); break;
        case 'K': kinds = atoi(optarg); break;
        default: usage(); return opt == 'h' ? 0 : 2;
        }
    }
    if (npn < 1 || records < 0 || elem < 1 || flushes < 1 || hot > 100 ||
        parse_modes(modes) == 0 ||
        (strcmp(kind, "data") && strcmp(kind, "comm")) ||
        (!strcmp(kind, "comm") && ((elem != 4 && elem != 8) || chunk_c < 1024 || kinds < 1 ||
                                   kinds > 5 || croute == 0))) {
        usage();
        return 2;
    }
    int ps[32], np = 0;
    char *dup = strdup(plist), *save = NULL;
    for (char *t = strtok_r(dup, ",", &save); t && np < 32; t = strtok_r(NULL, ",", &save)) {
        long v = strtol(t, NULL, 0);
        if (v < 1 || v > (1L << 24)) {
            fprintf(stderr, "simulate: bad P %s\n", t);
            return 2;
        }
        ps[np++] = (int)v;
    }
    free(dup);
    FILE *csv = csvf ? fopen(csvf, "w") : NULL;
    if (csvf && !csv) {
        perror(csvf);
        return 1;
    }
    /* the CSV goes to its file, or is kept to print after the results */
    char *mem = NULL;
    size_t memlen = 0;
    if (!csv)
        csv = open_memstream(&mem, &memlen);
    fprintf(csv, "workload,mode,npes,node_pes,records,elem,metric,unit,min,mean,max\n");

    int hots[2] = {hot < 0 ? 0 : hot, 25}, nh = hot < 0 ? 2 : 1;
    int status = 0;
    for (int w = 0; w < nh; w++) {
        char wl[32];
        if (hots[w])
            snprintf(wl, sizeof wl, "hot%d", hots[w]);
        else
            snprintf(wl, sizeof wl, "uniform");
        if (!strcmp(kind, "comm")) {
            for (int i = 0; i < np; i++) {
                int P = ps[i], n = P >= npn ? npn : P;
                if (P % n) {
                    fprintf(stderr, "simulate: P %d is not nodes of %d: skipped\n", P, n);
                    continue;
                }
                for (int r = 0; r < 2; r++)
                    if (croute & (1 << r))
                        status |= run_comm(csv, wl, P, n, records, kinds, elem, hots[w], seed,
                                           flushes,
                                           r && !budget_given ? CQ_PLAN_BUDGET_NODE_DEFAULT : budget,
                                           chunk_c, r);
            }
            continue;
        }
        const unsigned mask = parse_modes(modes);
        for (int hops = 1; hops <= 3; hops++) {
            if (!(mask & 1u << hops))
                continue;
            for (int i = 0; i < np; i++) {
                int P = ps[i], n = P >= npn ? npn : P;
                if (P % n) {
                    fprintf(stderr, "simulate: P %d is not nodes of %d: skipped\n", P, n);
                    continue;
                }
                status |= run_data(csv, wl, hops, P, n, records, elem, hots[w], seed,
                                   flushes, room_opt);
            }
        }
    }
    fclose(csv);
    if (mem) {
        printf("CSV\n%s", mem);
        free(mem);
    }
    printf("%s\n", status ? "simulate: FAILED"
                  : !strcmp(kind, "comm") ? "simulate: every flush balanced (bursts sent = received, ADDs pushed = bytes sent)"
                  : "simulate: every flush balanced (sent = received, pushed = sent + FULL)");
    return status;
}
