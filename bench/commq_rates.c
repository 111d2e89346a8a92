/* commq_rates.c: the histogram kernel (random int64 +1 updates into a table spread over
 * all PEs) with comm queues on each path, against raw-MPI baselines, in one run on the
 * same indices. Every variant's table is checked exactly.
 *
 *   mpiexec -n 2 bench/commq_rates [table_per_pe=1000] [updates_per_pe=4000000] [max_elems=0]
 *
 * Variants: mpi_single (one MPI_Accumulate per update: what a per-element
 * shmem_atomic_add costs; run on at most 20k updates), mpi_indexed (raw MPI: 4096
 * updates per target per MPI_Accumulate with an indexed-block datatype), and queue
 * variants (SHMEMQ_COMM_PATH=rma|am, SHMEMQ_COMBINE=0|1).
 * Output: one line per variant and a CSV line "csv,variant,npes,table,updates,seconds,Mups_total". */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, npes;
static long T, U;
static uint64_t MAXE; /* queue max_elems (argv[3], 0: default) */
static uint64_t *idx; /* packed (pe << 32 | col) */
static int64_t *expect;

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int check(const int64_t *table, const char *name)
{
    long bad = 0;
    for (long i = 0; i < T; i++)
        bad += table[i] != expect[i];
    long allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (allbad && me == 0)
        printf("%-22s WRONG: %ld counters differ\n", name, allbad);
    return allbad == 0;
}

#include <sys/resource.h>
static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}
static double cpu0;
/* On a shared, oversubscribed machine wall time measures the neighbours too; the CPU
 * seconds this PE used show the cost of the variant itself. */
static void report(const char *name, double t, long updates)
{
    double cpu = cpu_now() - cpu0, cmax = 0;
    MPI_Allreduce(&cpu, &cmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double total = (double)updates * npes / tmax / 1e6;
    if (me == 0) {
        printf("%-22s %10.2f M updates/s total (%8.2f per PE), %.3f s wall, %.3f s cpu (%.2f M/s per PE-cpu-second)\n",
               name, total, total / npes, tmax, cmax, (double)updates / cmax / 1e6);
        printf("csv,%s,%d,%ld,%ld,%.6f,%.3f,%.6f\n", name, npes, T, updates, tmax, total, cmax);
    }
}

static void run_queue(int64_t *table, const char *path, const char *combine, uint64_t max_elems)
{
    char name[64];
    snprintf(name, sizeof name, "queue_%s%s", path, combine[0] == '1' ? "_combine" : "");
    setenv("SHMEMQ_COMM_PATH", path, 1);
    setenv("SHMEMQ_COMBINE", combine, 1);
    memset(table, 0, sizeof(int64_t) * (size_t)T);
    shmem_barrier_all();
    shmem_queue_config_t c = {.qtype = SHMEM_QUEUE_COMM,
                              .max_elems = max_elems,
                              .timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT,
                              .op_type = SHMEM_OP_ATOMIC_ADD,
                              .pe_type = SHMEM_PE_ALL};
    shmem_queue_t q;
    if (shmem_queue_comm_create(&q, &c) != 0) {
        fprintf(stderr, "create failed\n");
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    double t0 = MPI_Wtime();
    cpu0 = cpu_now();
    const int64_t one = 1;
    for (long i = 0; i < U; i++) {
        int pe = (int)(idx[i] >> 32);
        long col = (long)(idx[i] & 0xffffffffu);
        while (shmem_int64_queue_comm_push(q, &table[col], &one, 1, pe, SHMEM_OP_ATOMIC_ADD) ==
               SHMEM_QUEUE_ERR_FULL)
            shmem_queue_progress(q);
        shmem_queue_progress(q);
    }
    shmem_queue_local_flush(q);
    double t = MPI_Wtime() - t0;
    shmem_barrier_all();
    report(name, t, U);
    shmemx_queue_stats_t st;
    shmemx_queue_stats(q, &st);
    if (me == 0)
        printf("    bursts %llu, combined %llu, flushes %llu, full returns %llu\n",
               (unsigned long long)st.bursts, (unsigned long long)st.combined_ops,
               (unsigned long long)st.flushes, (unsigned long long)st.full_returns);
    shmem_queue_comm_destroy(q);
    shmem_barrier_all();
    check(table, name);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    T = argc > 1 ? atol(argv[1]) : 1000;
    U = argc > 2 ? atol(argv[2]) : 4000000;
    MAXE = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
    idx = malloc(sizeof(uint64_t) * (size_t)U);
    int64_t *contrib = calloc((size_t)T * (size_t)npes, sizeof(int64_t));
    expect = malloc(sizeof(int64_t) * (size_t)T);
    uint64_t s = 0x9E3779B97F4A7C15ULL * (uint64_t)(me + 1);
    for (long i = 0; i < U; i++) {
        uint64_t g = rng(&s) % ((uint64_t)T * (uint64_t)npes);
        uint64_t pe = g / (uint64_t)T, col = g % (uint64_t)T;
        idx[i] = pe << 32 | col;
        contrib[g]++;
    }
    MPI_Reduce_scatter_block(contrib, expect, (int)T, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t *table = shmem_malloc(sizeof(int64_t) * (size_t)T);

    /* raw MPI window for the baselines */
    int64_t *wbuf;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(sizeof(int64_t) * (size_t)T), sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &wbuf, &win);
    MPI_Win_lock_all(0, win);
    if (me == 0)
        printf("histogram: %d PEs, %ld counters per PE, %ld updates per PE\n", npes, T, U);

    int skip_mpi = getenv("BENCH_SKIP_MPI") != NULL; /* profiling one variant */
    /* mpi_single */
    if (!skip_mpi) {
        long n1 = U < 20000 ? U : 20000;
        memset(wbuf, 0, sizeof(int64_t) * (size_t)T);
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
    cpu0 = cpu_now();
        const int64_t one = 1;
        for (long i = 0; i < n1; i++) {
            MPI_Accumulate(&one, 1, MPI_INT64_T, (int)(idx[i] >> 32),
                           (MPI_Aint)(idx[i] & 0xffffffffu), 1, MPI_INT64_T, MPI_SUM, win);
            if ((i & 65535) == 65535)
                MPI_Win_flush_all(win);
        }
        MPI_Win_flush_all(win);
        double t = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        report("mpi_single", t, n1);
    }
    /* mpi_indexed: the raw-MPI batched baseline */
    if (!skip_mpi) {
        const int B = 4096;
        int *cnt = calloc((size_t)npes, sizeof(int));
        int *disp = malloc(sizeof(int) * (size_t)B * (size_t)npes);
        int64_t *ones = malloc(sizeof(int64_t) * (size_t)B);
        for (int i = 0; i < B; i++)
            ones[i] = 1;
        memset(wbuf, 0, sizeof(int64_t) * (size_t)T);
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
    cpu0 = cpu_now();
        long inflight = 0;
        for (long i = 0; i < U + npes; i++) {
            int p;
            if (i < U) {
                p = (int)(idx[i] >> 32);
                disp[p * B + cnt[p]++] = (int)(idx[i] & 0xffffffffu);
                if (cnt[p] < B)
                    continue;
            } else {
                p = (int)(i - U); /* the remainders */
                if (cnt[p] == 0)
                    continue;
            }
            MPI_Datatype dt;
            MPI_Type_create_indexed_block(cnt[p], 1, &disp[p * B], MPI_INT64_T, &dt);
            MPI_Type_commit(&dt);
            if (inflight + cnt[p] > 131072) {
                MPI_Win_flush_all(win);
                inflight = 0;
            }
            MPI_Accumulate(ones, cnt[p], MPI_INT64_T, p, 0, 1, dt, MPI_SUM, win);
            MPI_Type_free(&dt);
            inflight += cnt[p];
            cnt[p] = 0;
        }
        MPI_Win_flush_all(win);
        double t = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
        report("mpi_indexed", t, U);
        check(wbuf, "mpi_indexed");
        free(cnt);
        free(disp);
        free(ones);
    }
    const char *only = getenv("BENCH_ONLY"); /* e.g. "am" to run one queue path */
    if (!only || strcmp(only, "rma") == 0) {
        run_queue(table, "rma", "0", MAXE);
        run_queue(table, "rma", "1", MAXE);
    }
    if (!only || strcmp(only, "am") == 0) {
        run_queue(table, "am", "0", MAXE);
        run_queue(table, "am", "1", MAXE);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    shmem_free(table);
    free(idx);
    free(contrib);
    free(expect);
    shmem_finalize();
    return 0;
}
