/* node_copy.c: put/get between PEs of one node against a plain shared-memory copy.
 *
 * PE 0 moves blocks of 8 B .. 64 KiB to and from PE 1's symmetric heap, four ways in the
 * same run and on the same buffers, interleaved per size (this VM changes speed in phases):
 *   shmem_putmem / shmem_getmem          the library (node transport when PE 1 is a peer)
 *   memcpy to / from shmem_ptr(buf, 1)   the plain shared-memory copy they must match
 * Each measurement is the best of -r rounds of enough copies to move ~32 MiB. Every round's
 * data is checked (PE 1 checks what PE 0 put; PE 0 checks what it got).
 * Usage: node_copy [-r rounds]. Prints one line per size and variant (ns per copy, GB/s),
 * a ratio line per size (target: library within 10% of memcpy), then CSV. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXB (64 * 1024)
enum { V_PUT, V_MEMCPY_PUT, V_GET, V_MEMCPY_GET, NV };
static const char *vname[NV] = {"shmem_putmem", "memcpy_put", "shmem_getmem", "memcpy_get"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 31u + i * 7u);
}

static int check(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 31u + i * 7u))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 5, opt;
    while ((opt = getopt(argc, argv, "r:")) != -1)
        if (opt == 'r')
            rounds = atoi(optarg);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    unsigned char *remote = shmem_malloc(MAXB); /* PE 1's is the target */
    unsigned char *local = malloc(MAXB);
    unsigned char *peer = n > 1 ? shmem_ptr(remote, 1) : NULL;
    if (n < 2 || peer == NULL) {
        if (me == 0)
            printf("node_copy: needs 2 PEs on one node (shmem_ptr to PE 1 is NULL)\n");
        shmem_finalize();
        return n < 2 || peer == NULL ? 0 : 1;
    }
    static const size_t sizes[] = {8, 64, 512, 4096, 32768, 65536};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    double best[NS][NV];
    int errors = 0;
    unsigned seed = 1;
    for (int s = 0; s < NS; s++)
        for (int v = 0; v < NV; v++)
            best[s][v] = 1e30;
    for (int r = 0; r < rounds; r++) {
        for (int s = 0; s < NS; s++) {
            size_t b = sizes[s];
            long reps = (long)((32u << 20) / b);
            if (reps > 1000000)
                reps = 1000000;
            for (int v = 0; v < NV; v++) {
                seed++;
                int is_get = v == V_GET || v == V_MEMCPY_GET;
                /* the side that is read holds the round's pattern */
                if (me == (is_get ? 1 : 0))
                    fill(is_get ? remote : local, b, seed);
                shmem_barrier_all();
                double t0 = now();
                if (me == 0) {
                    for (long i = 0; i < reps; i++) {
                        switch (v) {
                        case V_PUT: shmem_putmem(remote, local, b, 1); break;
                        case V_MEMCPY_PUT: memcpy(peer, local, b); break;
                        case V_GET: shmem_getmem(local, remote, b, 1); break;
                        default: memcpy(local, peer, b); break;
                        }
                        /* keep the compiler from merging the copies of the loop */
                        __asm__ __volatile__("" ::: "memory");
                    }
                    shmem_quiet();
                    double dt = (now() - t0) / (double)reps;
                    if (dt < best[s][v])
                        best[s][v] = dt;
                }
                shmem_barrier_all();
                if (me == (is_get ? 0 : 1) && check(is_get ? local : remote, b, seed)) {
                    fprintf(stderr, "node_copy: %s of %zu bytes delivered wrong data\n",
                            vname[v], b);
                    errors++;
                }
            }
        }
    }
    int all = 0;
    shmem_barrier_all();
    static int errs;
    errs = errors;
    shmem_barrier_all();
    if (me == 0)
        for (int p = 0; p < n; p++)
            all += shmem_int_g(&errs, p);
    if (me == 0) {
        printf("node_copy: PE 0 -> PE 1 on one node, best of %d rounds\n", rounds);
        for (int s = 0; s < NS; s++) {
            for (int v = 0; v < NV; v++)
                printf("%-14s %6zu B: %9.1f ns/copy %7.2f GB/s\n", vname[v], sizes[s],
                       best[s][v] * 1e9, sizes[s] / best[s][v] * 1e-9);
            printf("ratio %6zu B: put/memcpy %.2fx, get/memcpy %.2fx (target <= 1.10x) %s\n",
                   sizes[s], best[s][V_PUT] / best[s][V_MEMCPY_PUT],
                   best[s][V_GET] / best[s][V_MEMCPY_GET],
                   best[s][V_PUT] <= 1.1 * best[s][V_MEMCPY_PUT] &&
                           best[s][V_GET] <= 1.1 * best[s][V_MEMCPY_GET]
                       ? "PASS"
                       : "MISS");
        }
        printf("bench,variant,bytes,ns_per_copy,gb_per_s,check\n");
        for (int s = 0; s < NS; s++)
            for (int v = 0; v < NV; v++)
                printf("node_copy,%s,%zu,%.1f,%.3f,%s\n", vname[v], sizes[s], best[s][v] * 1e9,
                       sizes[s] / best[s][v] * 1e-9, all ? "FAIL" : "OK");
    }
    shmem_free(remote);
    free(local);
    shmem_finalize();
    return all ? 1 : 0;
}
