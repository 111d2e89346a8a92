/* bench/strided.c: which strided RMA method is fastest, per (block size, stride) cell.
 *
 * PE 0 moves a fixed volume of data to (put) and from (get) PE 1 as nblocks blocks of
 * bsize bytes (nblocks = volume / bsize, at least 1) whose starts are stride bytes apart
 * on both sides, once per method
 * (vector, blocks, pack, each forced) and once with the library's own choice (auto),
 * interleaved rep by rep on the same buffers. Every variant's data is checked. Prints one
 * line per cell and direction with the unit, a CSV block, the winners, and whether the
 * table's choice is within 10% of the best method in every cell. -w FILE writes the
 * winners as a rule table for SHMEMQ_STRIDED_TABLE.
 *
 * Several volumes (-v 4K,64K) give the table its block-count dimension.
 *
 *   mpiexec -n 2 bench/strided [-v volume[,volume..]] [-r min reps] [-m max reps] [-b budget ms]
 *                              [-k ops per rep] [-w table] [-c csv] [-q]
 */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>

/* internal hooks of the strided engine (src/mpi_rma/strided_impl.h) */
int shmemi_strided_set_method(int method);
int shmemi_strided_choose(int is_get, size_t blksize, ptrdiff_t dst_stride,
                          ptrdiff_t src_stride, size_t nblks);
const char *shmemi_strided_method_name(int method);

enum { AUTO = 0, VECTOR = 1, BLOCKS = 2, PACK = 3, NVAR = 4 };
static const size_t bsizes[] = {8, 32, 128, 512, 2048, 8192, 16384};
static const int ratios[] = {1, 2, 4, 8, 16, 32, 64};
#define NB (sizeof bsizes / sizeof bsizes[0])
#define NR (sizeof ratios / sizeof ratios[0])

typedef struct {
    double t[NVAR]; /* seconds per operation, best rep */
    int choice;     /* the table's method; 0 when the call is contiguous */
    int winner;     /* fastest forced method */
} cell_t;

#define MAXV 4
static cell_t cells[2][MAXV][NB][NR];
static size_t volumes[MAXV];
static int nvol;

static size_t nblocks_of(size_t volume, size_t blk)
{
    return volume / blk ? volume / blk : 1;
}

/* Buffers and timing parameters shared by the measuring code (PE 0 only). */
static unsigned char *remote, *local;
static int reps = 3, kops = 2, max_reps = 40;
static double budget = 0.008; /* seconds of timed reps per variant and cell, after `reps` */

/* Time every variant on the cell's buffers, interleaved rep by rep (the order rotates),
 * until each has had `reps` reps and spent its budget; keep each variant's best. */
static void time_cell(cell_t *c, int dir, size_t blk, ptrdiff_t stride, size_t n)
{
    double spent[NVAR] = {0};
    for (int rep = 0; rep < max_reps; rep++) {
        int active = 0;
        for (int v = 0; v < NVAR; v++) {
            int var = (v + rep) % NVAR;
            if (rep >= reps && spent[var] > budget)
                continue;
            active = 1;
            shmemi_strided_set_method(var);
            double t0 = MPI_Wtime();
            for (int k = 0; k < kops; k++) {
                if (dir == 0)
                    shmemx_iputmem(remote, local, stride, stride, blk, n, 1);
                else
                    shmemx_igetmem(local, remote, stride, stride, blk, n, 1);
            }
            shmem_quiet();
            double dt = MPI_Wtime() - t0;
            shmemi_strided_set_method(AUTO);
            spent[var] += dt;
            if (dt / kops < c->t[var])
                c->t[var] = dt / kops;
        }
        if (!active)
            break;
    }
}

static int winner_of(const cell_t *c)
{
    int w = VECTOR;
    for (int v = VECTOR; v <= PACK; v++)
        if (c->t[v] < c->t[w])
            w = v;
    return w;
}

static double chosen_time(const cell_t *c)
{
    return c->choice ? c->t[c->choice] : c->t[AUTO];
}

static size_t parse_size(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    if (*e == 'K' || *e == 'k')
        v *= 1024;
    else if (*e == 'M' || *e == 'm')
        v *= 1024 * 1024;
    return (size_t)v;
}

static inline unsigned char pat(unsigned seed, size_t i)
{
    return (unsigned char)(seed * 131u + i * 7u + 1u);
}

int main(int argc, char **argv)
{
    const char *vols = "4K,64K";
    int quick = 0;
    const char *table_out = NULL, *csv_out = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "v:r:m:b:k:w:c:q")) != -1) {
        switch (opt) {
        case 'v': vols = optarg; break;
        case 'r': reps = atoi(optarg); break;
        case 'm': max_reps = atoi(optarg); break;
        case 'b': budget = atof(optarg) / 1e3; break;
        case 'k': kops = atoi(optarg); break;
        case 'w': table_out = optarg; break;
        case 'c': csv_out = optarg; break;
        case 'q': quick = 1; break;
        default:
            fprintf(stderr, "usage: %s [-v volume] [-r reps] [-m max reps] [-b budget ms] [-k ops/rep] [-w table] [-c csv] "
                            "[-q]\n", argv[0]);
            return 2;
        }
    }
    if (quick)
        reps = 2, kops = 1, max_reps = 10, budget = 0.005;
    if (reps < 1)
        reps = 1;
    if (kops < 1)
        kops = 1;

    for (const char *v = vols; *v && nvol < MAXV;) {
        size_t x = parse_size(v);
        if (x == 0) {
            fprintf(stderr, "bad volume list %s\n", vols);
            return 2;
        }
        if (nvol == 0 || x > volumes[nvol - 1])
            volumes[nvol++] = x; /* ascending */
        v = strchr(v, ',');
        if (!v)
            break;
        v++;
    }
    size_t vmax = volumes[nvol - 1] > bsizes[NB - 1] ? volumes[nvol - 1] : bsizes[NB - 1];
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "bench/strided needs 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    size_t span_max = vmax * (size_t)ratios[NR - 1];
    remote = shmem_malloc(span_max); /* target of puts, source of gets */
    local = malloc(span_max);        /* source of puts, target of gets */
    unsigned char *model = malloc(span_max), *check = malloc(span_max);
    if (!remote || !local || !model || !check) {
        fprintf(stderr, "PE %d: out of memory (volume %zu)\n", me, vmax);
        shmem_global_exit(1);
    }
    int failures = 0;
    double t_start = MPI_Wtime();
    if (me == 0) {
        printf("# strided RMA methods, PE 0 <-> PE 1, volumes %s bytes per operation, "
               "best of >= %d reps (<= %d, %.0f ms budget) x %d ops\n", vols, reps, max_reps,
               budget * 1e3, kops);
        printf("# dir bsize stride nblocks: vector blocks pack auto (us per operation)\n");
    }
    for (int dir = 0; dir < 2 && me == 0; dir++) {
      for (int vi = 0; vi < nvol; vi++) {
        size_t volume = volumes[vi];
        for (size_t b = 0; b < NB; b++) {
            for (size_t r = 0; r < NR; r++) {
                size_t blk = bsizes[b], n = nblocks_of(volume, blk);
                ptrdiff_t stride = (ptrdiff_t)(blk * (size_t)ratios[r]);
                size_t span = (n - 1) * (size_t)stride + blk;
                cell_t *c = &cells[dir][vi][b][r];
                for (int v = 0; v < NVAR; v++)
                    c->t[v] = 1e30;
                c->choice = ratios[r] == 1 || n == 1 ? AUTO
                                           : shmemi_strided_choose(dir, blk, stride, stride, n);
                /* get source: one pattern on PE 1 for the whole cell */
                if (dir == 1) {
                    for (size_t i = 0; i < span; i++)
                        model[i] = pat(99, i);
                    shmem_putmem(remote, model, span, 1);
                    shmem_quiet();
                }
                /* Per variant: one untimed, verified warm-up with its own data, then
                 * timed reps on the same buffers until the budget is spent; the best rep
                 * counts (the machine is shared: the minimum is the least disturbed). */
                for (int var = 0; var < NVAR; var++) {
                    unsigned seed = (unsigned)(var + 1 + 4 * (b * NR + r));
                    if (dir == 0)
                        for (size_t i = 0; i < span; i++)
                            local[i] = pat(seed, i);
                    else
                        memset(local, 0, span);
                    shmemi_strided_set_method(var);
                    if (dir == 0)
                        shmemx_iputmem(remote, local, stride, stride, blk, n, 1);
                    else
                        shmemx_igetmem(local, remote, stride, stride, blk, n, 1);
                    shmem_quiet();
                    shmemi_strided_set_method(AUTO);
                    /* verify: the blocks moved and the gaps did not */
                    const unsigned char *got = local;
                    if (dir == 0) {
                        shmem_getmem(check, remote, span, 1);
                        got = check;
                    }
                    int bad = 0;
                    for (size_t k = 0; k < n && !bad; k++) {
                        size_t at = k * (size_t)stride;
                        for (size_t i = 0; i < blk; i++)
                            if (got[at + i] != pat(dir == 0 ? seed : 99, at + i)) {
                                bad = 1;
                                break;
                            }
                        if (dir == 1 && k + 1 < n)
                            for (size_t i = blk; i < (size_t)stride; i++)
                                if (got[at + i] != 0) {
                                    bad = 1;
                                    break;
                                }
                    }
                    if (bad) {
                        failures++;
                        printf("VERIFY FAILED: %s bsize %zu stride %td method %s\n",
                               dir ? "get" : "put", blk, stride, shmemi_strided_method_name(var));
                    }
                }
                time_cell(c, dir, blk, stride, n);
                int w = c->winner = winner_of(c);
                printf("%s bsize %6zu B stride %3dx nblocks %5zu: vector %9.2f us  blocks %9.2f "
                       "us  pack %9.2f us  auto(%s) %9.2f us  winner %s\n",
                       dir ? "get" : "put", blk, ratios[r], n, c->t[VECTOR] * 1e6,
                       c->t[BLOCKS] * 1e6, c->t[PACK] * 1e6,
                       c->choice ? shmemi_strided_method_name(c->choice) : "contig",
                       c->t[AUTO] * 1e6, shmemi_strided_method_name(w));
                fflush(stdout);
            }
        }
      }
    }
    /* Confirmation pass: a cell where the table's choice looks more than 10% slower than
     * the best is timed again, all variants alike, and each keeps its best of both passes
     * (on a shared machine one disturbed pass should not decide a cell). */
    for (int dir = 0; dir < 2 && me == 0; dir++)
        for (int vi = 0; vi < nvol; vi++)
            for (size_t b = 0; b < NB; b++)
                for (size_t r = 0; r < NR; r++) {
                    cell_t *c = &cells[dir][vi][b][r];
                    if (chosen_time(c) <= 1.10 * c->t[c->winner])
                        continue;
                    size_t blk = bsizes[b], n = nblocks_of(volumes[vi], blk);
                    ptrdiff_t stride = (ptrdiff_t)(blk * (size_t)ratios[r]);
                    time_cell(c, dir, blk, stride, n);
                    c->winner = winner_of(c);
                    printf("recheck %s bsize %6zu B stride %3dx nblocks %5zu: vector %9.2f us  "
                           "blocks %9.2f us  pack %9.2f us  auto %9.2f us  winner %s\n",
                           dir ? "get" : "put", blk, ratios[r], n, c->t[VECTOR] * 1e6,
                           c->t[BLOCKS] * 1e6, c->t[PACK] * 1e6, c->t[AUTO] * 1e6,
                           shmemi_strided_method_name(c->winner));
                }
    shmem_barrier_all();

    if (me == 0) {
        FILE *csv = csv_out ? fopen(csv_out, "w") : stdout;
        if (!csv) {
            perror(csv_out);
            csv = stdout;
        }
        if (csv == stdout)
            printf("\n# CSV\n");
        fprintf(csv, "dir,bsize_bytes,stride_ratio,nblocks,vector_us,blocks_us,pack_us,auto_us,"
                     "table_choice,winner,choice_over_best\n");
        int within = 1, auto_within = 1, ncells = 0;
        for (int dir = 0; dir < 2; dir++)
          for (int vi = 0; vi < nvol; vi++)
            for (size_t b = 0; b < NB; b++)
                for (size_t r = 0; r < NR; r++) {
                    cell_t *c = &cells[dir][vi][b][r];
                    double best = c->t[c->winner];
                    double chosen = chosen_time(c);
                    double ratio = chosen / best;
                    fprintf(csv, "%s,%zu,%d,%zu,%.3f,%.3f,%.3f,%.3f,%s,%s,%.3f\n",
                            dir ? "get" : "put", bsizes[b], ratios[r],
                            nblocks_of(volumes[vi], bsizes[b]),
                            c->t[VECTOR] * 1e6, c->t[BLOCKS] * 1e6, c->t[PACK] * 1e6,
                            c->t[AUTO] * 1e6,
                            c->choice ? shmemi_strided_method_name(c->choice) : "contig",
                            shmemi_strided_method_name(c->winner), ratio);
                    ncells++;
                    if (ratio > 1.10)
                        within = 0;
                    if (c->t[AUTO] > 1.10 * best)
                        auto_within = 0;
                }
        if (csv != stdout)
            fclose(csv);

        printf("\n# winners (rows: block size; columns: stride/block 1 2 4 8 16 32 64; "
               "V=vector B=blocks P=pack; * = table choice not within 10%%)\n");
        for (int dir = 0; dir < 2; dir++)
          for (int vi = 0; vi < nvol; vi++) {
            printf("%s, volume %zu B:\n", dir ? "get" : "put", volumes[vi]);
            for (size_t b = 0; b < NB; b++) {
                printf("  %6zu B x %5zu ", bsizes[b], nblocks_of(volumes[vi], bsizes[b]));
                for (size_t r = 0; r < NR; r++) {
                    cell_t *c = &cells[dir][vi][b][r];
                    double chosen = chosen_time(c);
                    printf(" %c%c", "?VBP"[c->winner], chosen > 1.10 * c->t[c->winner] ? '*' : ' ');
                }
                printf("\n");
            }
        }
        int nbad = 0;
        for (int dir = 0; dir < 2; dir++)
          for (int vi = 0; vi < nvol; vi++)
            for (size_t b = 0; b < NB; b++)
                for (size_t r = 0; r < NR; r++) {
                    cell_t *c = &cells[dir][vi][b][r];
                    double chosen = chosen_time(c);
                    if (chosen > 1.10 * c->t[c->winner])
                        nbad++;
                }
        printf("\ntable choice within 10%% of the best method in every cell: %s (%d of %d "
               "cells outside)\n", within ? "YES" : "NO", nbad, ncells);
        printf("auto (measured separately) within 10%% of the best in every cell: %s\n",
               auto_within ? "YES" : "NO");
        printf("verification: %s (%d failures)\n", failures ? "FAILED" : "all variants correct",
               failures);
        printf("elapsed %.1f s\n", MPI_Wtime() - t_start);

        if (table_out) {
            FILE *f = fopen(table_out, "w");
            if (!f) {
                perror(table_out);
            } else {
                fprintf(f, "# shmemq strided method table, written by bench/strided\n"
                           "# volumes %s bytes per operation; DIR BSIZE RATIO NBLOCKS METHOD\n"
                           "*  *  *  *  vector\n", vols);
                for (int dir = 0; dir < 2; dir++)
                  for (int vi = 0; vi < nvol; vi++)
                    for (size_t b = 0; b < NB; b++) {
                        /* block-count range of this volume: split at the geometric mean of
                         * neighbouring volumes' counts */
                        size_t n = nblocks_of(volumes[vi], bsizes[b]);
                        size_t nlo = 1, nhi = SIZE_MAX;
                        if (vi > 0) {
                            size_t p = nblocks_of(volumes[vi - 1], bsizes[b]);
                            if (p == n)
                                continue; /* same count as the smaller volume: covered */
                            nlo = (size_t)sqrt((double)p * (double)n) + 1;
                        }
                        for (int vj = vi + 1; vj < nvol; vj++) {
                            size_t q = nblocks_of(volumes[vj], bsizes[b]);
                            if (q != n) {
                                nhi = (size_t)sqrt((double)n * (double)q);
                                break;
                            }
                        }
                        char nr[48];
                        if (nhi == SIZE_MAX)
                            snprintf(nr, sizeof nr, "%zu-*", nlo);
                        else
                            snprintf(nr, sizeof nr, "%zu-%zu", nlo, nhi);
                        for (size_t r = 1; r < NR; r++) {
                            /* cell b covers block sizes (bsizes[b-1], bsizes[b]], the last one
                             * everything above; stride 2x also covers 1x (not contiguous) */
                            char bs[48], rr[32];
                            size_t lo = b ? bsizes[b - 1] + 1 : 1;
                            if (b + 1 == NB)
                                snprintf(bs, sizeof bs, "%zu-*", lo);
                            else
                                snprintf(bs, sizeof bs, "%zu-%zu", lo, bsizes[b]);
                            int rlo = r > 1 ? ratios[r - 1] + 1 : 1;
                            if (r + 1 == NR)
                                snprintf(rr, sizeof rr, "%d-*", rlo);
                            else
                                snprintf(rr, sizeof rr, "%d-%d", rlo, ratios[r]);
                            fprintf(f, "%s %s %s %s %s\n", dir ? "get" : "put", bs, rr, nr,
                                    shmemi_strided_method_name(cells[dir][vi][b][r].winner));
                        }
                    }
                fclose(f);
                printf("table written to %s (use: SHMEMQ_STRIDED_TABLE=%s)\n", table_out,
                       table_out);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(remote);
    free(local);
    free(model);
    free(check);
    shmem_finalize();
    return failures ? 1 : 0;
}
