/* session_amo.c: random non-fetching atomic adds (GUPS-like) into a symmetric table,
 * plain vs. inside a 1.6 batch session, same updates in the same run; each variant's
 * table sum is checked. Prints one line per variant and a CSV line.
 *   mpiexec -n 2 ./bench/session_amo [updates_per_pe] */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TABLE 4096

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double run(uint64_t *table, long n, int session, int *ok)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < TABLE; i++)
        table[i] = 0;
    shmem_barrier_all();
    unsigned seed = 12345u + (unsigned)me;
    double t0 = now();
    if (session)
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    for (long i = 0; i < n; i++) {
        int pe = rand_r(&seed) % npes;
        int idx = rand_r(&seed) % TABLE;
        shmem_uint64_atomic_add(&table[idx], 1, pe);
    }
    if (session)
        shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
    shmem_quiet();
    double t = now() - t0;
    shmem_barrier_all();
    static uint64_t sum, total;
    sum = 0;
    for (int i = 0; i < TABLE; i++)
        sum += table[i];
    shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, &total, &sum, 1);
    *ok = total == (uint64_t)n * (uint64_t)npes;
    static double tmax, tin;
    tin = t;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &tmax, &tin, 1);
    return tmax;
}

int main(int argc, char **argv)
{
    shmem_init();
    long n = argc > 1 ? atol(argv[1]) : 200000;
    uint64_t *table = shmem_calloc(TABLE, sizeof(uint64_t));
    int ok0, ok1;
    double t0 = run(table, n, 0, &ok0);
    double t1 = run(table, n, 1, &ok1);
    if (shmem_my_pe() == 0) {
        int np = shmem_n_pes();
        printf("plain   : %.3f Mupdates/s per PE (%ld updates/PE, %d PEs) %s\n", n / t0 / 1e6, n,
               np, ok0 ? "ok" : "WRONG");
        printf("session : %.3f Mupdates/s per PE (%ld updates/PE, %d PEs) %s\n", n / t1 / 1e6, n,
               np, ok1 ? "ok" : "WRONG");
        printf("csv,session_amo,%d,%ld,%.6f,%.6f,%d,%d\n", np, n, t0, t1, ok0, ok1);
    }
    shmem_free(table);
    shmem_finalize();
    return !(ok0 && ok1);
}
