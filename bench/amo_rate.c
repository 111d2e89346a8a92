/* amo_rate.c: AMO rate of PE 0 targeting PE 1 (or itself at 1 PE), per AMO kind.
 * Every variant runs in the same job over the same counter and its result is checked.
 * Usage: amo_rate [iterations]. Prints "name rate ops/s" lines and CSV lines. */
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
    int target = n > 1 ? 1 : 0;
    long *ctr = shmem_calloc(1, sizeof(long));
    /* compare_swap runs on an int: Open MPI 4.1 crashes on 64-bit MPI_Compare_and_swap */
    int *ictr = shmem_calloc(1, sizeof(int));
    long *fetched = malloc(sizeof(long) * (size_t)iters);
    int errors = 0;
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
            printf("%-24s %12.0f ops/s  (%ld ops, %d PEs)\n", names[v], iters / dt, iters, n);
            printf("CSV,amo_rate,%s,%d,%ld,%.0f\n", names[v], n, iters, iters / dt);
        }
    }
    shmem_barrier_all();
    shmem_free(ictr);
    shmem_free(ctr);
    free(fetched);
    shmem_finalize();
    return errors ? 1 : 0;
}
