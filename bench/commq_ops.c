/* bench/commq_ops.c: comm-queue bursts of ATOMIC_ADD, PUT and GET, one int64 per
 * operation, on the same random (PE, slot) sequence in the same run.
 *
 * The question (issue "one-sided for real"): are PUT and GET bursts as fast as ATOMIC_ADD
 * bursts? Each PE owns -t int64 slots; operation i goes to global slot g_i, uniform over
 * npes*t slots (slot g on PE g % npes at g / npes), and:
 *   add   SHMEM_OP_ATOMIC_ADD of 1        check: every slot holds how often it was hit
 *   put   SHMEM_OP_PUT of g_i + 1         check: every slot hit holds g + 1, the rest 0
 *   get   SHMEM_OP_GET of slot g_i, whose value is g_i + 1, into result[i]
 *                                         check: result[i] == g_i + 1 for every i
 * Each variant creates its queue (op_type of its operation, library defaults otherwise),
 * pushes everything (progress on FULL), shmem_queue_local_flush, barrier. The variants
 * alternate within each of -r reps (this VM changes speed in phases); the time of a rep
 * is the slowest PE's, the reported one the best rep. Rates: M operations/s summed over
 * the PEs. SHMEMQ_NODE_PES=1 runs the same through MPI (every PE its own node).
 * Usage: commq_ops [-n ops/PE] [-t slots/PE] [-r reps] [-v add,put,get] [-o file.csv]
 */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { V_ADD, V_PUT, V_GET, NV };
static const char *vname[NV] = {"add", "put", "get"};
static const shmem_op_type_t vop[NV] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_PUT, SHMEM_OP_GET};

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    uint64_t n = 4000000, tpp = 1000;
    int reps = 5;
    const char *out = NULL, *only = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "n:t:r:v:o:")) != -1) {
        switch (opt) {
        case 'n': n = strtoull(optarg, NULL, 0); break;
        case 't': tpp = strtoull(optarg, NULL, 0); break;
        case 'r': reps = atoi(optarg); break;
        case 'v': only = optarg; break;
        case 'o': out = optarg; break;
        default:
            if (me == 0)
                fprintf(stderr, "usage: commq_ops [-n ops/PE] [-t slots/PE] [-r reps] "
                                "[-v add,put,get] [-o csv]\n");
            shmem_finalize();
            return 1;
        }
    }
    if (n == 0 || tpp == 0 || tpp > INT32_MAX || reps < 1) {
        if (me == 0)
            fprintf(stderr, "commq_ops: -n, -t and -r must be positive\n");
        shmem_finalize();
        return 1;
    }
    uint64_t nglobal = tpp * (uint64_t)npes;
    uint64_t *gidx = malloc(n * sizeof(uint64_t));
    int *dpe = malloc(n * sizeof(int));
    uint64_t *doff = malloc(n * sizeof(uint64_t));
    int64_t *result = malloc(n * sizeof(int64_t));
    if (!gidx || !dpe || !doff || !result)
        bench_die("commq_ops", "malloc", 0);
    for (uint64_t i = 0; i < n; i++) {
        gidx[i] = bench_histo_index(0xc0ffee, me, i, nglobal);
        dpe[i] = (int)(gidx[i] % (uint64_t)npes);
        doff[i] = gidx[i] / (uint64_t)npes;
    }
    int64_t *hits = bench_histo_expected(gidx, n, tpp, npes); /* per own slot */
    int64_t *table = shmem_calloc(tpp, sizeof(int64_t));      /* add and put target */
    int64_t *source = shmem_malloc(tpp * sizeof(int64_t));    /* get source */
    for (uint64_t j = 0; j < tpp; j++)
        source[j] = (int64_t)(j * (uint64_t)npes + (uint64_t)me) + 1;

    double best[NV];
    int ok[NV];
    for (int v = 0; v < NV; v++) {
        best[v] = 0;
        ok[v] = 1;
    }
    for (int r = 0; r < reps; r++) {
        for (int v = 0; v < NV; v++) {
            if (!bench_wanted(only, vname[v]))
                continue;
            memset(table, 0, tpp * sizeof(int64_t));
            memset(result, 0, n * sizeof(int64_t));
            shmem_queue_t q;
            int rc = bench_commq_create(&q, vop[v], 0);
            if (rc)
                bench_die("commq_ops", "shmem_queue_comm_create", rc);
            const int64_t one = 1;
            shmem_barrier_all();
            double t = bench_now();
            for (uint64_t i = 0; i < n; i++) {
                int64_t val = (int64_t)gidx[i] + 1;
                if (v == V_ADD)
                    bench_commq_push_int64("commq_ops", q, &table[doff[i]], &one, dpe[i],
                                           SHMEM_OP_ATOMIC_ADD);
                else if (v == V_PUT)
                    bench_commq_push_int64("commq_ops", q, &table[doff[i]], &val, dpe[i],
                                           SHMEM_OP_PUT);
                else
                    bench_commq_push_int64("commq_ops", q, &result[i], &source[doff[i]],
                                           dpe[i], SHMEM_OP_GET);
            }
            if ((rc = shmem_queue_local_flush(q)))
                bench_die("commq_ops", "shmem_queue_local_flush", rc);
            shmem_barrier_all();
            t = bench_now() - t;
            if ((rc = shmem_queue_comm_destroy(q)))
                bench_die("commq_ops", "shmem_queue_comm_destroy", rc);
            bench_mam_t m = bench_min_avg_max(t);
            if (r == 0 || m.max < best[v])
                best[v] = m.max;
            int good = 1;
            if (v == V_ADD) {
                good = bench_histo_check(table, hits, tpp, (int64_t)n * npes);
            } else if (v == V_PUT) {
                for (uint64_t j = 0; j < tpp; j++) {
                    int64_t g = (int64_t)(j * (uint64_t)npes + (uint64_t)me);
                    if (table[j] != (hits[j] ? g + 1 : 0))
                        good = 0;
                }
                good = bench_all_true(good);
            } else {
                for (uint64_t i = 0; i < n; i++)
                    if (result[i] != (int64_t)gidx[i] + 1)
                        good = 0;
                good = bench_all_true(good);
            }
            ok[v] &= good;
        }
    }
    int all_ok = 1;
    if (me == 0)
        printf("commq_ops: %d PEs, %llu operations/PE, %llu slots/PE, best of %d reps, %s\n",
               npes, (unsigned long long)n, (unsigned long long)tpp, reps, bench_mpi_name());
    for (int v = 0; v < NV; v++) {
        if (!bench_wanted(only, vname[v]))
            continue;
        bench_result_t *res = bench_record(vname[v], npes, n, tpp, best[v], reps, ok[v]);
        if (me == 0)
            printf("%-4s: %10.3f Mops/s summed over %d PEs (%.4f s, %llu ops/PE) %s\n",
                   vname[v], res->rate, npes, best[v], (unsigned long long)n,
                   ok[v] ? "OK" : "WRONG");
        all_ok &= ok[v];
    }
    if (me == 0) {
        bench_ratio("put / add", bench_find("put"), bench_find("add"), 0.9);
        bench_ratio("get / add", bench_find("get"), bench_find("add"), 0.9);
        fflush(stdout);
        bench_write_csv(out, "commq_ops", bench_mpi_name(), "mops_per_s");
    }
    shmem_free(table);
    shmem_free(source);
    free(gidx);
    free(dpe);
    free(doff);
    free(result);
    free(hits);
    shmem_finalize();
    return all_ok ? 0 : 1;
}
