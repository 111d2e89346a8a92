/* amo_lockstep.c: PEs swapping each other's words, the pattern of a third-party
 * atomic_nbi test that could livelock inside shmem_quiet (issue 13).
 *
 * Per round every PE does 64 swaps, then 32 x (compare_swap + fetch_add), targets rotating
 * over all PEs, two ways in the same run on the same words:
 *   nbi       the _nbi forms, shmem_quiet after each group (the original test)
 *   blocking  the blocking forms, one at a time
 * Every run is checked: no value is created or lost (what was swapped in equals what was
 * fetched out plus what the words hold at the end, as sums and sums of squares) and every
 * fetch_add arrived. Off the node (SHMEMQ_NODE_PES=1) these are MPI atomics, on one node
 * CPU atomics.
 * Usage: amo_lockstep [-n rounds] [-r reps]. Prints one line per variant (rounds/s, the
 * best rep) and CSV lines. */
#include <shmem.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 16
enum { V_NBI, V_BLOCKING, NV };
static const char *vname[NV] = {"nbi", "blocking"};

static int words[W], counts[W]; /* globals: symmetric through the data segment */

/* Sums wrap (unsigned): equal sums stay equal, and no overflow is undefined. */
typedef struct {
    uint64_t in_sum, in_sq, out_sum, out_sq;
} tally_t;

static void add(uint64_t *s, uint64_t *q, int v) { *s += (uint64_t)v, *q += (uint64_t)v * (uint64_t)v; }

/* A value no other PE and no other round or slot uses. */
static int token(int me, int n, int rep, int r, int k)
{
    return 1 + me + n * ((rep * 1000 + r) * 96 + k);
}

static void run(int v, int rep, int rounds, tally_t *t)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int fs[64], fc[32], fa[32];
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 64; k++) {
            int pe = (me + 1 + k) % n, x = token(me, n, rep, r, k);
            if (v == V_NBI)
                shmem_int_atomic_swap_nbi(&fs[k], &words[k % W], x, pe);
            else
                fs[k] = shmem_int_atomic_swap(&words[k % W], x, pe);
        }
        if (v == V_NBI)
            shmem_quiet();
        for (int k = 0; k < 64; k++)
            add(&t->in_sum, &t->in_sq, token(me, n, rep, r, k)), add(&t->out_sum, &t->out_sq, fs[k]);
        for (int k = 0; k < 32; k++) {
            int pe = (me + 1 + k) % n, cond = token(me, n, rep, r, 48 + k % W);
            int x = token(me, n, rep, r, 64 + k), apes = (me + 2 + k) % n;
            if (v == V_NBI) {
                shmem_int_atomic_compare_swap_nbi(&fc[k], &words[k % W], cond, x, pe);
                shmem_int_atomic_fetch_add_nbi(&fa[k], &counts[(k + 3) % W], 1, apes);
            } else {
                fc[k] = shmem_int_atomic_compare_swap(&words[k % W], cond, x, pe);
                fa[k] = shmem_int_atomic_fetch_add(&counts[(k + 3) % W], 1, apes);
            }
        }
        if (v == V_NBI)
            shmem_quiet();
        for (int k = 0; k < 32; k++)
            if (fc[k] == token(me, n, rep, r, 48 + k % W))
                add(&t->in_sum, &t->in_sq, token(me, n, rep, r, 64 + k)),
                    add(&t->out_sum, &t->out_sq, fc[k]);
    }
}

static uint64_t sum_all(uint64_t x)
{
    uint64_t r = 0;
    MPI_Allreduce(&x, &r, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

int main(int argc, char **argv)
{
    int rounds = 100, reps = 3, opt;
    while ((opt = getopt(argc, argv, "n:r:")) != -1) {
        if (opt == 'n')
            rounds = atoi(optarg);
        else if (opt == 'r')
            reps = atoi(optarg);
    }
    if (rounds < 1 || rounds > 999 || reps < 1 || reps > 50) { /* tokens stay ints */
        fprintf(stderr, "usage: amo_lockstep [-n rounds (1-999)] [-r reps (1-50)]\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    double best[NV] = {1e30, 1e30};
    int bad = 0;
    for (int rep = 0; rep < reps; rep++) {
        for (int v = 0; v < NV; v++) { /* interleaved: this VM changes speed in phases */
            memset(words, 0, sizeof words);
            memset(counts, 0, sizeof counts);
            tally_t t = {0};
            shmem_barrier_all();
            double t0 = MPI_Wtime();
            run(v, rep * NV + v, rounds, &t);
            shmem_barrier_all();
            double dt = MPI_Wtime() - t0, slowest = 0;
            MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (slowest < best[v])
                best[v] = slowest;
            uint64_t end_sum = 0, end_sq = 0, cnt = 0;
            for (int i = 0; i < W; i++)
                add(&end_sum, &end_sq, words[i]), cnt += (uint64_t)counts[i];
            uint64_t in_s = sum_all(t.in_sum), in_q = sum_all(t.in_sq);
            uint64_t out_s = sum_all(t.out_sum) + sum_all(end_sum);
            uint64_t out_q = sum_all(t.out_sq) + sum_all(end_sq);
            if (in_s != out_s || in_q != out_q || sum_all(cnt) != (uint64_t)n * rounds * 32) {
                if (me == 0)
                    fprintf(stderr, "amo_lockstep: %s rep %d: values created or lost\n",
                            vname[v], rep);
                bad = 1;
            }
        }
    }
    if (me == 0) {
        for (int v = 0; v < NV; v++)
            printf("%-9s %10.1f rounds/s  (%d PEs, %d rounds of 128 AMOs, best of %d) %s\n",
                   vname[v], rounds / best[v], n, rounds, reps, bad ? "FAIL" : "OK");
        printf("bench,variant,pes,rounds,rounds_per_s,check\n");
        for (int v = 0; v < NV; v++)
            printf("amo_lockstep,%s,%d,%d,%.1f,%s\n", vname[v], n, rounds, rounds / best[v],
                   bad ? "FAIL" : "OK");
    }
    shmem_finalize();
    return bad;
}
