/* bench/scale.c: the histogram and index-gather queue kernels (the very code of
 * bench/histogram.c and bench/indexgather.c, from their *_kernels.h) at one PE count,
 * with what each queue held and sent as shmemx_queue_usage reports it just before its
 * destroy. bench/scale.sh runs it at 1..16 PEs and several SHMEMQ_NODE_PES groupings.
 *
 * Per kernel, one CSV line (appended to -o FILE, header written when the file is new):
 *   bench,variant,pes,pes_per_node,oversubscribed,mode,rate,unit,ok,
 *   bytes_per_pe_max,msgs_per_flush,peers_max,flushes,mpi
 * rate: best of -r runs (slowest PE), summed over PEs, in Mupd/s or Mgather/s.
 * bytes_per_pe_max: the largest, over PEs, of meta + scratch + buffer bytes summed over
 * the kernel's queues (index-gather's dataq has two). msgs_per_flush: messages / flushes
 * summed over the kernel's queues, averaged over PEs. peers_max: the most distinct peers
 * one queue of one PE sent to. flushes: per PE (max). Every answer is checked; the exit
 * status is nonzero if one is wrong. */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "histogram_kernels.h"
#include "indexgather_kernels.h"

typedef struct {
    uint64_t bytes, msgs, flushes, peers;
    uint32_t mode;
} seen_t;

static void seen_queue(shmem_queue_t q, void *arg)
{
    seen_t *s = arg;
    shmemx_queue_usage_t u;
    int rc = shmemx_queue_usage(q, &u);
    if (rc) bench_die("scale", "shmemx_queue_usage", rc);
    s->bytes += u.meta_bytes + u.scratch_bytes + u.buffer_bytes;
    s->msgs += u.msgs_total;
    s->flushes += u.flushes;
    if (u.peers_total > s->peers) s->peers = u.peers_total;
    s->mode = u.mode;
}

static const char *mode_name(uint32_t m)
{
    return m == SHMEMX_QUEUE_MODE_COMM_RMA ? "comm_rma"
           : m == SHMEMX_QUEUE_MODE_COMM_AM ? "comm_am"
           : m == SHMEMX_QUEUE_MODE_COMM_NODE ? "comm_node"
           : m == SHMEMX_QUEUE_MODE_DATA_FLAT ? "data_flat"
           : m == SHMEMX_QUEUE_MODE_DATA_ROUTED ? "data_routed"
           : m == SHMEMX_QUEUE_MODE_DATA_ROUTED3 ? "data_routed3"
           : m == SHMEMX_QUEUE_MODE_DATA_NBX ? "data_nbx" : "?";
}

static uint64_t max_u64(uint64_t v)
{
    uint64_t r;
    MPI_Allreduce(&v, &r, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return r;
}

static double sum_d(double v)
{
    double r;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

static void emit(FILE *csv, const char *bench, const char *variant, int npes, int npn,
                 double rate, const char *unit, int ok, const seen_t *s)
{
    uint64_t bytes = max_u64(s->bytes), peers = max_u64(s->peers), fl = max_u64(s->flushes);
    double mpf = sum_d(s->flushes ? (double)s->msgs / (double)s->flushes : 0.0) / npes;
    if (shmem_my_pe() != 0) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int over = cores > 0 && npes > cores;
    printf("%-11s %-10s P=%-3d per node %-3d%s %-9s %10.3f %s %s  %8.1f KiB/PE  %7.1f msgs/flush  "
           "%llu peers  %llu flushes\n",
           bench, variant, npes, npn, over ? " (oversubscribed)" : "", mode_name(s->mode), rate,
           unit, ok ? "OK" : "WRONG", bytes / 1024.0, mpf, (unsigned long long)peers,
           (unsigned long long)fl);
    if (csv)
        fprintf(csv, "%s,%s,%d,%d,%d,%s,%.3f,%s,%d,%llu,%.2f,%llu,%llu,%s\n", bench, variant, npes,
                npn, over, mode_name(s->mode), rate, unit, ok, (unsigned long long)bytes, mpf,
                (unsigned long long)peers, (unsigned long long)fl, bench_mpi_name());
}

/* One kernel variant as run_kernel times, checks and reports it. */
typedef struct kernel {
    const char *bench, *variant, *unit;
    int v;                              /* which variant run makes */
    double ops;                         /* operations a run makes, summed over PEs */
    void **on_queue_arg;                /* the kernel's: where seen_queue adds up */
    void *out;                          /* the answer, zeroed before every run */
    size_t out_bytes;
    double (*run)(const struct kernel *k); /* this PE's time */
    int (*right)(const struct kernel *k);  /* every PE's answer right (collective) */
    void *data;                         /* histo_t or ig_t */
    const int64_t *expect;
} kernel_t;

static double histo_run(const kernel_t *k) /* 0: comm queue, 1: data queue */
{
    histo_t *h = k->data;
    return k->v == 0 ? histo_commq(h, h->counts, NULL) : histo_dataq(h, h->counts);
}
static int histo_right(const kernel_t *k)
{
    const histo_t *h = k->data;
    return bench_histo_check(h->counts, k->expect, h->tpp, (int64_t)h->n * h->npes);
}
static double ig_run(const kernel_t *k) /* 0: data queues, 1: queued GETs */
{
    return k->v == 0 ? ig_dataq(k->data) : ig_commq_get(k->data);
}
static int ig_right(const kernel_t *k)
{
    const ig_t *x = k->data;
    int mine = 1;
    for (uint64_t i = 0; i < x->r; i++)
        if (x->result[i] != k->expect[i]) mine = 0;
    return bench_all_true(mine);
}

/* Runs k reps times: the best run (slowest PE) as a rate, the queues' usage of the last
 * run, one line (emit). 1 if every run's answer was right. */
static int run_kernel(FILE *csv, int npes, int npn, int reps, const kernel_t *k)
{
    double best = 0;
    int ok = 1;
    seen_t s = {0};
    for (int r = 0; r < reps; r++) {
        seen_t sr = {0};
        *k->on_queue_arg = &sr;
        memset(k->out, 0, k->out_bytes);
        shmem_barrier_all();
        double t = k->run(k);
        bench_mam_t m = bench_min_avg_max(t);
        if (r == 0 || m.max < best) best = m.max;
        ok &= k->right(k);
        s = sr; /* every run makes the same queues: keep the last one's figures */
    }
    *k->on_queue_arg = NULL; /* sr is gone */
    double rate = best > 0 ? k->ops / best / 1e6 : 0;
    emit(csv, k->bench, k->variant, npes, npn, rate, k->unit, ok, &s);
    return ok;
}

static void usage(void)
{
    fprintf(stderr, "usage: scale [-n updates/PE] [-g requests/PE] [-t entries/PE] [-r reps]\n"
                    "             [-b dataq bytes/peer (0: default room)] [-s seed] [-o csv]\n");
}

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    uint64_t n = 200000, ng = 200000, tpp = 1000, dqbytes = 0, seed = 0x5ca1e;
    int reps = 1;
    const char *out = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "n:g:t:r:b:s:o:h")) != -1) {
        switch (opt) {
        case 'n': n = strtoull(optarg, NULL, 0); break;
        case 'g': ng = strtoull(optarg, NULL, 0); break;
        case 't': tpp = strtoull(optarg, NULL, 0); break;
        case 'r': reps = atoi(optarg); break;
        case 'b': dqbytes = strtoull(optarg, NULL, 0); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'o': out = optarg; break;
        default:
            if (me == 0) usage();
            shmem_finalize();
            return opt == 'h' ? 0 : 1;
        }
    }
    /* index-gather packs offsets and slots into 32 bits each */
    if (tpp == 0 || tpp > UINT32_MAX || ng == 0 || ng > UINT32_MAX || reps < 1 ||
        (dqbytes && dqbytes < 8)) {
        if (me == 0) usage();
        shmem_finalize();
        return 1;
    }
    const int npn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    FILE *csv = NULL;
    if (me == 0 && out) {
        FILE *probe = fopen(out, "r");
        csv = fopen(out, "a");
        if (!csv) bench_die("scale", out, -1);
        if (!probe)
            fprintf(csv, "bench,variant,pes,pes_per_node,oversubscribed,mode,rate,unit,ok,"
                         "bytes_per_pe_max,msgs_per_flush,peers_max,flushes,mpi\n");
        else
            fclose(probe);
    }
    if (me == 0)
        printf("scale: %d PEs, %d per node, %llu updates and %llu requests per PE, %s\n", npes,
               npn, (unsigned long long)n, (unsigned long long)ng, bench_mpi_name());
    int all_ok = 1;

    /* histogram: comm queue (ATOMIC_ADD) and data queue */
    histo_t h = {0};
    h.me = me;
    h.npes = npes;
    h.n = n;
    h.tpp = tpp;
    h.dqbytes = dqbytes;
    h.on_queue = seen_queue;
    int64_t *expect_n, *expect_a;
    histo_make_data(&h, seed, &expect_n, &expect_a);
    h.counts = shmem_calloc(tpp, sizeof(int64_t));
    for (int v = 0; v < 2; v++) {
        kernel_t k = {"histogram", v == 0 ? "commq" : "dataq", "Mupd/s", v, (double)n * npes,
                      &h.on_queue_arg, h.counts, tpp * sizeof(int64_t), histo_run, histo_right,
                      &h, expect_n};
        all_ok &= run_kernel(csv, npes, npn, reps, &k);
    }
    shmem_free(h.counts);
    free(h.dpe);
    free(h.doff);
    free(expect_n);
    free(expect_a);

    /* index-gather: two data queues (requests, replies), and queued GETs */
    ig_t x = {0};
    x.me = me;
    x.npes = npes;
    x.r = ng;
    x.tpp = tpp;
    /* ig_dataq sizes its per-owner rings from the room: it needs the room in bytes */
    x.dqbytes = dqbytes ? dqbytes : 256 << 10;
    x.on_queue = seen_queue;
    int64_t *expect;
    ig_make_data(&x, seed, &expect);
    shmem_barrier_all();
    for (int v = 0; v < 2; v++) {
        kernel_t k = {"indexgather", v == 0 ? "dataq" : "commq_get", "Mgather/s", v,
                      (double)ng * npes, &x.on_queue_arg, x.result, ng * sizeof(int64_t), ig_run,
                      ig_right, &x, expect};
        all_ok &= run_kernel(csv, npes, npn, reps, &k);
    }
    shmem_free(x.result);
    shmem_free(x.table);
    free(x.spe);
    free(x.soff);
    free(expect);
    if (csv) fclose(csv);
    shmem_finalize();
    return all_ok ? 0 : 1;
}
