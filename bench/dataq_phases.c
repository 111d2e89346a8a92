/* dataq_phases.c: where a data queue's time goes, phase by phase: the pushes, the
 * global flush and the pops, each timed from barrier to barrier (the slowest PE), for
 * direct and routed mode (SHMEMQ_DATAQ_ROUTE=direct, 2hop) interleaved in one job, into
 * a queue made for the repetition ("fresh": its buffers grow inside the timed pushes
 * and flush) and into one queue kept across the repetitions ("kept").
 * Each PE pushes n 8-byte elements to uniformly random PEs (one push per element, the
 * inline path where the mode has one), flushes once, pops everything by source and
 * checks it: every element carries its source and index, and the counts must add up.
 *
 *   mpiexec -n 4 env SHMEMQ_NODE_PES=2 bench/dataq_phases [n=1000000] [reps=3]
 * Output per mode, queue kind and repetition: milliseconds per phase, and a CSV line
 * "csv,dataq_phases,mode,queue,npes,n,rep,push_ms,flush_ms,pop_ms". Routed mode needs
 * a team it can route (nodes of equal size): otherwise its lines say "direct" was made. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "bench_util.h"

static void die(const char *what, int rc)
{
    fprintf(stderr, "dataq_phases: %s failed: %d (%s)\n", what, rc, shmemx_queue_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static shmem_queue_t make(const char *mode, long n)
{
    setenv("SHMEMQ_DATAQ_ROUTE", mode, 1);
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.data_elem_size = 8;
    c.max_bytes = (uint64_t)n * 8; /* every element may go to one PE: never FULL */
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    int rc = shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD);
    if (rc)
        die("shmem_queue_data_create", rc);
    unsetenv("SHMEMQ_DATAQ_ROUTE");
    return q;
}

static double phase_end(double t0)
{
    double t = bench_now() - t0;
    shmem_barrier_all();
    return bench_min_avg_max(t).max * 1e3;
}

/* One repetition into q: the three phases in ms; 1 if every PE got what was sent. */
static int one(shmem_queue_t q, const int *dst, long n, double ms[3])
{
    int me = shmem_my_pe(), np = shmem_n_pes(), rc;
    shmem_barrier_all();
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        uint64_t v = (uint64_t)me << 40 | (uint64_t)i;
        if ((rc = shmem_queue_data_push(q, &v, 1, dst[i])))
            die("shmem_queue_data_push", rc);
    }
    ms[0] = phase_end(t0);
    t0 = bench_now();
    if ((rc = shmem_queue_global_flush(q)))
        die("shmem_queue_global_flush", rc);
    ms[1] = phase_end(t0);
    t0 = bench_now();
    uint64_t buf[4096], got = 0;
    int ok = 1;
    for (int s = 0; s < np; s++) {
        size_t in = 0, out = 0;
        if ((rc = shmem_query_data_size(q, &in, &out, s)))
            die("shmem_query_data_size", rc);
        int64_t last = -1;
        for (size_t k = in / 8; k > 0;) {
            size_t b = k > 4096 ? 4096 : k;
            if ((rc = shmem_queue_data_pop(q, buf, b, s)))
                die("shmem_queue_data_pop", rc);
            for (size_t j = 0; j < b; j++) { /* from s, in s's push order */
                int64_t i = (int64_t)(buf[j] & ((1ull << 40) - 1));
                ok &= (int)(buf[j] >> 40) == s && i > last && i < n;
                last = i;
            }
            got += b;
            k -= b;
        }
    }
    ms[2] = phase_end(t0);
    /* exactly what was sent to me arrived: the per-destination counts, reduced */
    long *cnt = calloc((size_t)np, sizeof *cnt), to_me = 0;
    if (cnt == NULL)
        die("calloc", -1);
    for (long i = 0; i < n; i++)
        cnt[dst[i]]++;
    MPI_Reduce_scatter_block(cnt, &to_me, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(cnt);
    return bench_all_true(ok && (uint64_t)to_me == got);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (n < 1 || n >= (1l << 40) || reps < 1) {
        if (me == 0)
            fprintf(stderr, "usage: dataq_phases [n >= 1] [reps >= 1]\n");
        shmem_finalize();
        return 2;
    }
    int *dst = malloc((size_t)n * sizeof *dst);
    if (dst == NULL)
        die("malloc", -1);
    for (long i = 0; i < n; i++)
        dst[i] = (int)bench_range(bench_rand(7, me, (uint64_t)i), (uint64_t)np);
    const char *modes[2] = {"direct", "2hop"};
    shmem_queue_t kept[2] = {make(modes[0], n), make(modes[1], n)};
    int all_ok = 1;
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < 2; m++)
            for (int fresh = 1; fresh >= 0; fresh--) {
                shmem_queue_t q = fresh ? make(modes[m], n) : kept[m];
                shmemx_queue_usage_t u;
                int rc = shmemx_queue_usage(q, &u);
                if (rc)
                    die("shmemx_queue_usage", rc);
                const char *made = u.mode == SHMEMX_QUEUE_MODE_DATA_ROUTED    ? "2hop"
                                   : u.mode == SHMEMX_QUEUE_MODE_DATA_ROUTED3 ? "3hop"
                                                                              : "direct";
                double ms[3];
                int ok = one(q, dst, n, ms);
                all_ok &= ok;
                if (me == 0) {
                    printf("dataq_phases %-6s %-5s P=%d n=%ld rep %d: push %8.2f ms  flush %8.2f ms"
                           "  pop %7.2f ms  %s\n", made, fresh ? "fresh" : "kept", np, n, r,
                           ms[0], ms[1], ms[2], ok ? "OK" : "WRONG");
                    printf("csv,dataq_phases,%s,%s,%d,%ld,%d,%.3f,%.3f,%.3f\n", made,
                           fresh ? "fresh" : "kept", np, n, r, ms[0], ms[1], ms[2]);
                }
                if (fresh && (rc = shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD)))
                    die("shmem_queue_data_destroy", rc);
            }
    for (int m = 0; m < 2; m++) {
        int rc = shmem_queue_data_destroy(&kept[m], SHMEM_TEAM_WORLD);
        if (rc)
            die("shmem_queue_data_destroy", rc);
    }
    free(dst);
    shmem_finalize();
    return all_ok ? 0 : 1;
}
