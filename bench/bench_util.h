/* bench_util.h: shared helpers of the shmemq benchmarks (header-only).
 *
 *  - timing (MPI_Wtime) and min/avg/max of a value over all PEs,
 *  - a counter-based 64-bit RNG: value i of PE p's stream is a pure function of
 *    (seed, p, i), so any PE can recompute any other PE's stream exactly,
 *  - exact expected histograms via MPI_Reduce_scatter_block (independent of the
 *    library under test),
 *  - result collection and CSV output (file given by -o, else stdout).
 *
 * The benchmarks use MPI_COMM_WORLD directly for timing collectives and checks:
 * shmemq runs on MPI and PE i is MPI_COMM_WORLD rank i.
 */
#ifndef SHMEMQ_BENCH_UTIL_H
#define SHMEMQ_BENCH_UTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shmemx.h>

/* A queue or library call failed: say which, with the queue error's name, and stop the job. */
static inline void bench_die(const char *prog, const char *what, int rc)
{
    fprintf(stderr, "%s: %s failed: %d (%s)\n", prog, what, rc,
            rc < 0 ? shmemx_queue_strerror(rc) : "");
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The benchmarks' comm queue: EXCLUSIVE, one op, no timeout; 0 or the create's error. */
static inline int bench_commq_create(shmem_queue_t *q, shmem_op_type_t op, uint64_t max_elems)
{
    shmem_queue_config_t c = {0};
    c.qtype = SHMEM_QUEUE_COMM;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.max_elems = max_elems;
    c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    c.op_type = op;
    c.pe_type = SHMEM_PE_ALL;
    return shmem_queue_comm_create(q, &c);
}

/* Queue one int64 operation, progressing the queue while it is FULL; any error stops. */
static inline void bench_commq_push_int64(const char *prog, shmem_queue_t q, int64_t *dest,
                                          const int64_t *src, int pe, shmem_op_type_t op)
{
    int rc;
    while ((rc = shmem_int64_queue_comm_push(q, dest, src, 1, pe, op)) == SHMEM_QUEUE_ERR_FULL) {
        int p = shmem_queue_progress(q);
        if (p < 0) bench_die(prog, "shmem_queue_progress", p);
    }
    if (rc) bench_die(prog, "shmem_int64_queue_comm_push", rc);
}

/* A byte count option with an optional K, M or G suffix (powers of 1024); anything
 * else stops the program (a plain strtoull read "8M" as 8 bytes). */
static inline uint64_t bench_bytes(const char *prog, const char *opt)
{
    char *end;
    unsigned long long v = strtoull(opt, &end, 0);
    unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (end == opt || *end != '\0' || v > (UINT64_MAX >> shift)) {
        fprintf(stderr, "%s: '%s' is not a byte count (a number, optionally K, M or G)\n", prog,
                opt);
        exit(2);
    }
    return (uint64_t)v << shift;
}

/* The hand-written Alltoallv baselines' count exchange: items of this PE per
 * destination (sc, from dest[0..n)) and, by MPI_Alltoall, per source (rc); returns the
 * number this PE receives. */
static inline uint64_t bench_a2a_counts(const uint32_t *dest, uint64_t n, int npes, int *sc,
                                        int *rc)
{
    for (int p = 0; p < npes; p++) sc[p] = 0;
    for (uint64_t i = 0; i < n; i++) sc[dest[i]]++;
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    uint64_t nr = 0;
    for (int p = 0; p < npes; p++) nr += (uint64_t)rc[p];
    return nr;
}

/* Is variant `name` in the comma list `only` (NULL: every variant)? */
static inline int bench_wanted(const char *only, const char *name)
{
    if (!only)
        return 1;
    size_t l = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p += l)
        if ((p == only || p[-1] == ',') && (p[l] == '\0' || p[l] == ','))
            return 1;
    return 0;
}

static inline double bench_now(void) { return MPI_Wtime(); }

/* splitmix64 finaliser: a good 64-bit mixer, fast enough to sit in the update loop. */
static inline uint64_t bench_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Value i of PE pe's stream for a given seed. */
static inline uint64_t bench_rand(uint64_t seed, int pe, uint64_t i)
{
    return bench_mix64(bench_mix64(seed ^ ((uint64_t)pe << 48)) + i);
}

/* Unbiased enough for benchmarks: multiply-shift maps 64 random bits onto [0, n). */
static inline uint64_t bench_range(uint64_t r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

typedef struct {
    double min, avg, max;
} bench_mam_t;

static inline bench_mam_t bench_min_avg_max(double v)
{
    bench_mam_t r;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Allreduce(&v, &r.min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &r.max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &r.avg, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    r.avg /= n;
    return r;
}

static inline int bench_all_true(int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

static inline int64_t bench_sum_i64(int64_t v)
{
    int64_t s;
    MPI_Allreduce(&v, &s, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

/*
 * Histogram update stream: global counter index g in [0, npes*tpp) lives on PE
 * g % npes at offset g / npes (bale's cyclic layout).
 */
static inline uint64_t bench_histo_index(uint64_t seed, int pe, uint64_t i, uint64_t nglobal)
{
    return bench_range(bench_rand(seed, pe, i), nglobal);
}

/*
 * Exact expected counters of this PE's table after every PE applied the first m
 * updates of its stream: each PE counts its own updates into a global-size array,
 * then MPI_Reduce_scatter_block sums the arrays and hands each PE its slice.
 * Returns a malloc'ed array of tpp counters (caller frees).
 */
static inline int64_t *bench_histo_expected(const uint64_t *gidx, uint64_t m, uint64_t tpp,
                                            int npes)
{
    uint64_t nglobal = tpp * (uint64_t)npes;
    /* PE-major order (slice of PE p = its counters by offset) so reduce_scatter works. */
    int64_t *full = calloc(nglobal, sizeof(int64_t));
    int64_t *mine = calloc(tpp, sizeof(int64_t));
    if (!full || !mine) {
        fprintf(stderr, "bench: out of memory for the expected table\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (uint64_t i = 0; i < m; i++) {
        uint64_t g = gidx[i];
        full[(g % npes) * tpp + g / npes]++;
    }
    /* Counts per block must fit an int: split large tables into chunks. */
    const uint64_t chunk = (1u << 26) / (uint64_t)npes;
    for (uint64_t off = 0; off < tpp; off += chunk) {
        uint64_t len = tpp - off < chunk ? tpp - off : chunk;
        int64_t *tmp = malloc(len * npes * sizeof(int64_t));
        for (int p = 0; p < npes; p++)
            memcpy(tmp + p * len, full + p * tpp + off, len * sizeof(int64_t));
        MPI_Reduce_scatter_block(tmp, mine + off, (int)len, MPI_INT64_T, MPI_SUM,
                                 MPI_COMM_WORLD);
        free(tmp);
    }
    free(full);
    return mine;
}

/* 1 on every PE iff every PE's table equals its expected slice and the global sum is total. */
static inline int bench_histo_check(const int64_t *counts, const int64_t *expect, uint64_t tpp,
                                    int64_t total)
{
    int ok = 1;
    int64_t sum = 0;
    for (uint64_t j = 0; j < tpp; j++) {
        sum += counts[j];
        if (counts[j] != expect[j]) ok = 0;
    }
    return bench_all_true(ok) && bench_sum_i64(sum) == total;
}

/* ---- Results: a human line each as it is measured, CSV at the end ---- */
typedef struct {
    char name[48];
    int npes;
    uint64_t ops_per_pe;   /* updates or gathers per PE in one timed run */
    uint64_t table_per_pe; /* counters / table entries per PE */
    double seconds;        /* chosen run: slowest PE's time */
    double rate;           /* Mops/s summed over PEs = npes*ops_per_pe / seconds / 1e6 */
    int reps;
    int ok;
} bench_result_t;

#define BENCH_MAX_RESULTS 32
static bench_result_t bench_results[BENCH_MAX_RESULTS];
static int bench_nresults;

static inline bench_result_t *bench_record(const char *name, int npes, uint64_t ops,
                                           uint64_t table, double seconds, int reps, int ok)
{
    bench_result_t *r = &bench_results[bench_nresults < BENCH_MAX_RESULTS ? bench_nresults++
                                                                          : BENCH_MAX_RESULTS - 1];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->npes = npes;
    r->ops_per_pe = ops;
    r->table_per_pe = table;
    r->seconds = seconds;
    r->rate = seconds > 0 ? (double)npes * (double)ops / seconds / 1e6 : 0.0;
    r->reps = reps;
    r->ok = ok;
    return r;
}

static inline const bench_result_t *bench_find(const char *name)
{
    for (int i = 0; i < bench_nresults; i++)
        if (strcmp(bench_results[i].name, name) == 0) return &bench_results[i];
    return NULL;
}

/* CSV: one header line, one line per result. path NULL or "-": stdout. */
static inline void bench_write_csv(const char *path, const char *bench, const char *mpi_name,
                                   const char *unit)
{
    FILE *f = (!path || strcmp(path, "-") == 0) ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot open %s\n", path);
        return;
    }
    fprintf(f, "bench,mpi,variant,npes,ops_per_pe,table_per_pe,seconds,%s,reps,check\n", unit);
    for (int i = 0; i < bench_nresults; i++) {
        const bench_result_t *r = &bench_results[i];
        fprintf(f, "%s,%s,%s,%d,%llu,%llu,%.6f,%.3f,%d,%s\n", bench, mpi_name, r->name, r->npes,
                (unsigned long long)r->ops_per_pe, (unsigned long long)r->table_per_pe,
                r->seconds, r->rate, r->reps, r->ok ? "OK" : "WRONG");
    }
    if (f != stdout) fclose(f);
}

/* "MPICH" / "Open MPI" / other, for the CSV. */
static inline const char *bench_mpi_name(void)
{
    static char name[32];
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    if (strstr(v, "MPICH"))
        snprintf(name, sizeof name, "MPICH");
    else if (strstr(v, "Open MPI"))
        snprintf(name, sizeof name, "Open MPI");
    else
        snprintf(name, sizeof name, "MPI");
    return name;
}

/* Ratio line with a PASS/MISS verdict against a target. */
static inline void bench_ratio(const char *what, const bench_result_t *a, const bench_result_t *b,
                               double target)
{
    if (!a || !b || b->rate <= 0) return;
    double x = a->rate / b->rate;
    printf("ratio %s: %.2fx (target >= %.2fx) %s\n", what, x, target,
           (x >= target && a->ok && b->ok) ? "PASS" : "MISS");
}

#endif /* SHMEMQ_BENCH_UTIL_H */
