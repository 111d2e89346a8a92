/* amo_rate.c: AMO rate of PE 0 targeting PE 1 (or itself at 1 PE; another PE with the
 * second argument), per AMO kind, and raw per-element MPI_Accumulate to the same PE in the
 * same run (flushed every 64, as bench/histogram's mpi_single), the yardstick issue 21
 * names. Every variant runs in the same job and its result is checked.
 * Usage: amo_rate [iterations [target]]. Prints "name rate ops/s" lines and CSV lines. */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    shmem_init();
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    int me = shmem_my_pe(), n = shmem_n_pes();
    int target = argc > 2 ? atoi(argv[2]) : n > 1 ? 1 : 0;
    if (target < 0 || target >= n) {
        if (me == 0)
            fprintf(stderr, "amo_rate: target %d is not a PE (0..%d)\n", target, n - 1);
        shmem_finalize();
        return 2;
    }
    long *ctr = shmem_calloc(1, sizeof(long));
    /* compare_swap runs on an int: Open MPI 4.1 crashes on 64-bit MPI_Compare_and_swap */
    int *ictr = shmem_calloc(1, sizeof(int));
    long *fetched = malloc(sizeof(long) * (size_t)iters);
    int errors = 0;
    double add_rate = 0;
    static const char *names[] = {"atomic_fetch_add", "atomic_add", "atomic_fetch_add_nbi",
                                  "int_atomic_compare_swap", "atomic_fetch"};
    for (int v = 0; v < 5; v++) {
        shmem_barrier_all();
        double t0 = now();
        if (me == 0) {
            long sum = 0;
            for (long i = 0; i < iters; i++) {
                switch (v) {
                case 0: sum += shmem_long_atomic_fetch_add(ctr, 1, target); break;
                case 1: shmem_long_atomic_add(ctr, 1, target); break;
                case 2: shmem_long_atomic_fetch_add_nbi(&fetched[i], ctr, 1, target); break;
                case 3: sum += shmem_int_atomic_compare_swap(ictr, -1, 0, target); break;
                case 4: sum += shmem_long_atomic_fetch(ctr, target); break;
                }
            }
            shmem_quiet();
            double dt = now() - t0;
            long expect = (v <= 2 ? (v + 1) : 3) * iters; /* value after this variant */
            long got = shmem_long_atomic_fetch(ctr, target);
            if (got != expect) {
                fprintf(stderr, "%s: counter %ld, expected %ld\n", names[v], got, expect);
                errors++;
            }
            if (v == 0 && sum != iters * (iters - 1) / 2)
                errors++, fprintf(stderr, "%s: wrong fetched sum\n", names[v]);
            if (v == 2) {
                long s2 = 0;
                for (long i = 0; i < iters; i++)
                    s2 += fetched[i];
                if (s2 != 2 * iters * iters + iters * (iters - 1) / 2)
                    errors++, fprintf(stderr, "%s: wrong fetched sum\n", names[v]);
            }
            if (v == 1)
                add_rate = iters / dt;
            printf("%-24s %12.0f ops/s  (%ld ops, %d PEs)\n", names[v], iters / dt, iters, n);
            printf("CSV,amo_rate,%s,%d,%ld,%.0f\n", names[v], n, iters, iters / dt);
        }
    }
    /* every variant's target waited in shmem_barrier_all, the last one's too (not in the
     * MPI_Win_allocate below, where only its node agent serves it) */
    shmem_barrier_all();
    /* raw MPI: per-element MPI_Accumulate (MPI_SUM) on a window of its own */
    long *wbase;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win);
    *wbase = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    double t0 = now();
    if (me == 0) {
        const long one = 1;
        for (long i = 0; i < iters; i++) {
            MPI_Accumulate(&one, 1, MPI_LONG, target, 0, 1, MPI_LONG, MPI_SUM, win);
            if ((i & 63) == 63)
                MPI_Win_flush(target, win);
        }
        MPI_Win_flush(target, win);
    }
    double dt = now() - t0;
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == target && *wbase != iters) {
        fprintf(stderr, "mpi_accumulate: counter %ld, expected %ld\n", *wbase, iters);
        errors++;
    }
    if (me == 0) {
        printf("%-24s %12.0f ops/s  (%ld ops, %d PEs)\n", "mpi_accumulate", iters / dt, iters, n);
        printf("CSV,amo_rate,%s,%d,%ld,%.0f\n", "mpi_accumulate", n, iters, iters / dt);
        printf("atomic_add / mpi_accumulate: %.2fx (PE 0 -> PE %d)\n", add_rate * dt / iters,
               target);
    }
    MPI_Win_free(&win);
    shmem_barrier_all();
    shmem_free(ictr);
    shmem_free(ctr);
    free(fetched);
    shmem_finalize();
    return errors ? 1 : 0;
}
