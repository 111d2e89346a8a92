/* bench/strided.c: which strided RMA method is fastest, per (block size, stride) cell, and
 * is the library's own choice as fast.
 *
 * PE 0 moves a fixed volume of data to (put) and from (get) PE 1 as nblocks blocks of
 * bsize bytes (nblocks = volume / bsize, at least 1) whose starts are stride bytes apart
 * on both sides. Variants: each method forced (vector, blocks, pack) and the tuned call
 * (auto: the real public call path, table lookup included). Every variant's data is
 * checked first. Then the variants are timed on the same buffers in rounds, one rep of
 * each variant per round (round-robin, the order rotating and reversing from round to
 * round so no variant always follows the same one); a rep is k back-to-back operations
 * plus shmem_quiet, with k chosen per cell so that a rep of the fastest variant lasts
 * about -t microseconds. A variant's time is the median of the fastest half of its reps
 * (robust against preemption on a shared machine, and against one lucky rep). Methods
 * more than 3x slower than the best after three rounds stop being timed (they cannot be
 * the best). The check: the tuned call within 10% of the best forced method, in every
 * cell, judged on PAIRED reps: per forced method, the median over rounds of (tuned rep /
 * that method's rep in the same round), the largest of these. The machine's state
 * drifts between rounds (a shared VM: the same method's median moved 13% between two
 * variants of one cell); a rep and its partner share the state, so their ratio does not
 * drift with it.
 *
 * Output: one line per cell with the unit, a CSV block (or -c file), the winners grid,
 * the check, the cost of a table lookup. -p P runs the whole grid P times (independent
 * passes, each checked); -w FILE writes a rule table for SHMEMQ_STRIDED_TABLE choosing,
 * per cell, the method that was within 3% of the best in the most passes; with -A also
 * an alternative where another method won the passes in which that one fell behind (the
 * library then picks between the two at run time; experimental, see docs/strided.md).
 *
 *   mpiexec -n 2 bench/strided [-v volume[,volume..]] [-p passes] [-n min rounds]
 *       [-N max rounds] [-b budget ms per cell] [-t rep us] [-w table] [-c csv]
 *       [-a earlier csv].. [-A] [-D raw reps] [-q]
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
int shmemi_strided_load_table(const char *path);

enum { AUTO = 0, VECTOR = 1, BLOCKS = 2, PACK = 3, NVAR = 4 };
static const size_t bsizes[] = {8, 32, 128, 512, 2048, 8192, 16384};
static const int ratios[] = {1, 2, 4, 8, 16, 32, 64};
#define NB (sizeof bsizes / sizeof bsizes[0])
#define NR (sizeof ratios / sizeof ratios[0])
#define MAXV 4
#define MAXP 8   /* passes measured in one run */
#define MAXALL 32 /* plus passes read back from earlier runs' CSVs (-a) */
#define MAXROUNDS 256
#define TIE 1.03 /* for the table: a method within 3% of the best counts as a winner */

typedef struct {
    double t[NVAR];   /* seconds per operation: median of the fastest half of the reps */
    double min[NVAR]; /* fastest rep */
    int reps[NVAR];   /* reps timed */
    int kops;         /* operations per rep */
    int dropped;      /* rounds thrown away as disturbed (see time_cell) */
    double elapsed;   /* seconds spent timing the cell */
    int disturbed;    /* too few undisturbed rounds: all rounds counted */
    int choice;       /* the table's method; 0 when the call is contiguous */
    double ratio;     /* tuned call over the best method, paired (see the top comment) */
    int winner;       /* fastest forced method */
} cell_t;

static cell_t cells[MAXALL][2][MAXV][NB][NR];
static size_t volumes[MAXV];
static int nvol, npasses = 1, nall, write_alts; /* nall: measured + read back, for the table */

static size_t nblocks_of(size_t volume, size_t blk)
{
    return volume / blk ? volume / blk : 1;
}

/* Buffers and timing parameters shared by the measuring code (PE 0 only). */
static unsigned char *remote, *local;
static int min_rounds = 15, max_rounds = 61;
static double budget = 0.040;    /* seconds per cell (all variants), after min_rounds */
static double rep_target = 25e-6; /* seconds per rep of the fastest variant */
static FILE *raw;                /* -D: every rep's time, for offline analysis */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of the fastest half: the fastest half drops reps that lost the CPU or met a
 * disturbed network moment (a shared 2-core node), its median does not hang on the single
 * luckiest rep. Sorts s. */
static double robust_time(double *s, int n)
{
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    int h = (n + 1) / 2;
    return h % 2 ? s[h / 2] : 0.5 * (s[h / 2 - 1] + s[h / 2]);
}

static double one_rep(int var, int dir, size_t blk, ptrdiff_t stride, size_t n, int kops)
{
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
    return dt / kops;
}

/* The tuned call over the best forced method from reps paired by round (x[v][k]: round
 * k): per method still timed, the median of auto/method over the rounds both ran, then
 * the largest over the methods (the best method gives the largest). */
static double paired_ratio(double x[][MAXROUNDS], const int *nx, const int *active)
{
    static double r[MAXROUNDS];
    double worst = 0;
    for (int v = VECTOR; v <= PACK; v++) {
        int n = nx[v] < nx[AUTO] ? nx[v] : nx[AUTO];
        if (!active[v] || n == 0)
            continue;
        for (int k = 0; k < n; k++)
            r[k] = x[AUTO][k] / x[v][k];
        qsort(r, (size_t)n, sizeof *r, cmp_double);
        double med = n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
        if (med > worst)
            worst = med;
    }
    return worst;
}

static int winner_of(const cell_t *c)
{
    int w = VECTOR;
    for (int v = VECTOR; v <= PACK; v++)
        if (c->t[v] < c->t[w])
            w = v;
    return w;
}

/* Reference operation: an 8-byte put to PE 1 completed by quiet. On this shared node a
 * moment when PE 1 (or PE 0) has lost its core shows up here first: every MPI RMA call
 * then waits for the target to be scheduled again. */
static unsigned char *ref_remote;
static double ref_best = 1e30; /* fastest reference seen in the run */

static double ref_op(void)
{
    static unsigned char x;
    double t0 = MPI_Wtime();
    shmem_putmem(ref_remote, &x, 1, 1);
    shmem_quiet();
    double dt = MPI_Wtime() - t0;
    if (dt < ref_best)
        ref_best = dt;
    return dt;
}

static int disturbed_cells;
/* A round whose reference took more than 4x its best + 20 us is disturbed: the reference
 * itself varies up to ~5x between undisturbed rounds, losing the core costs far more. */
#define REF_LIMIT (4.0 * ref_best + 20e-6)
#define CELL_CAP 0.5  /* seconds: a cell stops waiting for undisturbed rounds after this */

/* Time every variant on the cell's buffers, round-robin (see the top comment). A round
 * is kept only if the reference operation timed before every rep of the round, and after
 * the last, stayed within REF_LIMIT: the rounds kept are judged by something
 * independent of the variants' own times. Measures until min_rounds kept rounds and the
 * budget are reached (max_rounds kept rounds at most), or CELL_CAP seconds passed (then,
 * if fewer than 3 rounds were kept, every round counts and the cell is reported as
 * disturbed). */
static void time_cell(cell_t *c, int dir, size_t blk, ptrdiff_t stride, size_t n)
{
    static double s[NVAR][MAXROUNDS], all[NVAR][MAXROUNDS], sorted[MAXROUNDS];
    int active[NVAR], nall[NVAR];
    /* calibration rep (also a second warm-up): one operation per variant */
    double best = 1e30;
    for (int v = 0; v < NVAR; v++) {
        double t = one_rep(v, dir, blk, stride, n, 1);
        if (v != AUTO && t < best)
            best = t;
        active[v] = 1;
        c->reps[v] = nall[v] = 0;
    }
    int kops = (int)(rep_target / best + 0.5);
    c->kops = kops < 1 ? 1 : kops > 64 ? 64 : kops;
    c->dropped = 0;
    double t_start = MPI_Wtime(), t_budget = t_start;
    int kept = 0, dropped_methods = 0;
    for (int round = 0; kept < max_rounds && nall[AUTO] < MAXROUNDS; round++) {
        double now = MPI_Wtime();
        if ((kept >= min_rounds && now - t_budget > budget) || now - t_start > CELL_CAP)
            break;
        double t[NVAR];
        int clean = ref_op() <= REF_LIMIT;
        for (int i = 0; i < NVAR; i++) {
            int v = (round & 1 ? NVAR - 1 - i + round / 2 : i + round / 2) % NVAR;
            if (!active[v])
                continue;
            t[v] = one_rep(v, dir, blk, stride, n, c->kops);
            all[v][nall[v]++] = t[v];
            clean &= ref_op() <= REF_LIMIT;
        }
        if (!clean) {
            c->dropped++;
            continue;
        }
        for (int v = 0; v < NVAR; v++)
            if (active[v])
                s[v][c->reps[v]++] = t[v];
        if (++kept == 3 && !dropped_methods) { /* stop timing methods that cannot be best */
            dropped_methods = 1;
            double bmed = 1e30;
            for (int v = VECTOR; v <= PACK; v++) {
                memcpy(sorted, s[v], sizeof(double) * (size_t)c->reps[v]);
                qsort(sorted, (size_t)c->reps[v], sizeof(double), cmp_double);
                if (sorted[c->reps[v] / 2] < bmed)
                    bmed = sorted[c->reps[v] / 2];
            }
            for (int v = VECTOR; v <= PACK; v++) {
                double mn = s[v][0];
                for (int k = 1; k < c->reps[v]; k++)
                    mn = s[v][k] < mn ? s[v][k] : mn;
                if (mn > 3.0 * bmed) {
                    active[v] = 0;
                    t_budget = MPI_Wtime(); /* the budget is for the contenders */
                }
            }
        }
    }
    c->elapsed = MPI_Wtime() - t_start;
    c->disturbed = kept < 3;
    c->ratio = paired_ratio(c->disturbed ? all : s, c->disturbed ? nall : c->reps, active);
    for (int v = 0; v < NVAR; v++) {
        double *x = c->disturbed ? all[v] : s[v];
        int nx = c->disturbed ? nall[v] : c->reps[v];
        if (raw) {
            fprintf(raw, "%s,%zu,%td,%zu,%s,%d", dir ? "get" : "put", blk,
                    stride / (ptrdiff_t)blk, n, shmemi_strided_method_name(v), c->kops);
            for (int k = 0; k < nx; k++)
                fprintf(raw, ",%.3f", x[k] * 1e6);
            fprintf(raw, "\n");
        }
        c->reps[v] = nx;
        c->t[v] = robust_time(x, nx);
        c->min[v] = x[0];
    }
    c->winner = winner_of(c);
}

static void print_cell(const cell_t *c, const char *prefix, int dir, size_t blk, int ratio,
                       size_t n)
{
    printf("%s%s bsize %6zu B stride %3dx nblocks %5zu: vector %9.2f us  blocks %9.2f us  "
           "pack %9.2f us  auto(%s) %9.2f us (%.3fx best, paired)  winner %s  (%d reps x %d ops, %.1f ms, %d "
           "rounds dropped%s)\n", prefix, dir ? "get" : "put", blk, ratio, n, c->t[VECTOR] * 1e6,
           c->t[BLOCKS] * 1e6, c->t[PACK] * 1e6,
           c->choice ? shmemi_strided_method_name(c->choice) : "contig", c->t[AUTO] * 1e6,
           c->ratio, shmemi_strided_method_name(c->winner), c->reps[AUTO], c->kops, c->elapsed * 1e3,
           c->dropped,
           c->disturbed ? ", DISTURBED" : "");
    fflush(stdout);
}

/* -a FILE: the passes of an earlier run's CSV (-c output, same volumes) join this run's
 * for the table's decisions (not for this run's check): a table can then rest on runs
 * made at different times, i.e. in different states of a shared machine. */
static int read_passes(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    char line[512], dir[8];
    int base = nall, top = nall, pass, ratio, disturbed, dropped;
    size_t bsize, n;
    double t[NVAR];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%d,%3[a-z],%zu,%d,%zu,%lf,%lf,%lf,%lf,%*[^,],%*[^,],%*f,%*d,%*d,%*f,"
                         "%*f,%*f,%*f,%d,%d", &pass, dir, &bsize, &ratio, &n, &t[VECTOR],
                   &t[BLOCKS], &t[PACK], &t[AUTO], &dropped, &disturbed) != 11)
            continue; /* header */
        int p = base + pass - 1, vi, b, r;
        if (pass < 1 || p >= MAXALL)
            continue;
        for (b = 0; b < (int)NB && bsizes[b] != bsize; b++)
            ;
        for (r = 0; r < (int)NR && ratios[r] != ratio; r++)
            ;
        for (vi = 0; vi < nvol && nblocks_of(volumes[vi], bsize) != n; vi++)
            ;
        if (b == (int)NB || r == (int)NR || vi == nvol)
            continue;
        cell_t *c = &cells[p][strcmp(dir, "get") == 0][vi][b][r];
        for (int v = 0; v < NVAR; v++)
            c->t[v] = t[v] * 1e-6;
        c->disturbed = disturbed;
        c->dropped = dropped;
        c->winner = winner_of(c);
        if (p + 1 > top)
            top = p + 1;
    }
    fclose(f);
    printf("# %d passes read from %s for the table\n", top - base, path);
    nall = top;
    return 0;
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

/* Each variant once with its own data, checked: the blocks moved and the gaps did not.
 * Returns the number of variants that failed. */
static int verify_cell(int dir, size_t b, size_t r, size_t blk, ptrdiff_t stride, size_t n,
                       unsigned char *model, unsigned char *check)
{
    size_t span = (n - 1) * (size_t)stride + blk;
    int failures = 0;
    if (dir == 1) { /* get source: one pattern on PE 1 for the whole cell */
        for (size_t i = 0; i < span; i++)
            model[i] = pat(99, i);
        shmem_putmem(remote, model, span, 1);
        shmem_quiet();
    }
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
            printf("VERIFY FAILED: %s bsize %zu stride %td method %s\n", dir ? "get" : "put",
                   blk, stride, shmemi_strided_method_name(var));
        }
    }
    return failures;
}

/* The method for the table in one cell: within TIE of the best forced method in the
 * most (undisturbed) passes; ties broken by the smallest mean log ratio to the best. */
static int robust_winner(int dir, int vi, size_t b, size_t r)
{
    int best = VECTOR, best_wins = -1, clean = 0;
    double best_score = 1e30;
    for (int p = 0; p < nall; p++)
        clean += !cells[p][dir][vi][b][r].disturbed;
    for (int m = VECTOR; m <= PACK; m++) {
        int wins = 0;
        double score = 0;
        for (int p = 0; p < nall; p++) {
            const cell_t *c = &cells[p][dir][vi][b][r];
            if (clean && c->disturbed) /* disturbed passes vote only if all are */
                continue;
            double ratio = c->t[m] / c->t[c->winner];
            wins += ratio <= TIE;
            score += log(ratio);
        }
        if (wins > best_wins || (wins == best_wins && score < best_score)) {
            best = m;
            best_wins = wins;
            best_score = score;
        }
    }
    return best;
}

/* The alternative for a cell whose winner changes with the machine's state: the method
 * that was fastest most often (twice at least) in the undisturbed passes where the chosen
 * method was more
 * than 5% behind the best, if it was never more than 2x the best (the library runs it
 * on one call in 32 to keep watching it: at most ~3% on average). 0: none. */
static int robust_alt(int dir, int vi, size_t b, size_t r, int primary)
{
    if (!write_alts)
        return 0;
    int votes[NVAR] = {0}, clean = 0;
    double worst[NVAR] = {0};
    for (int p = 0; p < nall; p++)
        clean += !cells[p][dir][vi][b][r].disturbed;
    for (int p = 0; p < nall; p++) {
        const cell_t *c = &cells[p][dir][vi][b][r];
        if (clean && c->disturbed)
            continue;
        for (int m = VECTOR; m <= PACK; m++)
            if (c->t[m] / c->t[c->winner] > worst[m])
                worst[m] = c->t[m] / c->t[c->winner];
        if (c->t[primary] > 1.05 * c->t[c->winner])
            votes[c->winner]++;
    }
    int alt = 0;
    for (int m = VECTOR; m <= PACK; m++)
        if (m != primary && votes[m] >= 2 && votes[m] > (alt ? votes[alt] : 0) && worst[m] <= 2.0)
            alt = m;
    return alt;
}

/* Rule table: one rule per (direction, block-size cell, block-count range), ratios with
 * the same method merged. Block-size cell b covers (bsizes[b-1], bsizes[b]] (the last one
 * everything above), ratio cell r covers (ratios[r-1], ratios[r]] (2x also covers 1x,
 * the last everything above), matching the library's power-of-two classes. A volume's
 * block-count range reaches to the geometric mean of its neighbours' counts; cells with
 * one block never consult the table and give no rule. */
static void write_table(const char *path, const char *vols)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fprintf(f, "# shmemq strided method table, written by bench/strided (%d passes)\n"
               "# volumes %s bytes per operation; DIR BSIZE RATIO NBLOCKS METHOD\n"
               "*  *  *  *  vector\n", nall, vols);
    for (int dir = 0; dir < 2; dir++)
        for (size_t b = 0; b < NB; b++)
            for (int vi = 0; vi < nvol; vi++) {
                size_t n = nblocks_of(volumes[vi], bsizes[b]);
                if (n == 1)
                    continue;
                size_t nlo = 1, nhi = SIZE_MAX;
                if (vi > 0) {
                    size_t p = nblocks_of(volumes[vi - 1], bsizes[b]);
                    if (p == n)
                        continue; /* same count as the smaller volume: covered */
                    if (p > 1)
                        nlo = (size_t)sqrt((double)p * (double)n) + 1;
                }
                for (int vj = vi + 1; vj < nvol; vj++) {
                    size_t q = nblocks_of(volumes[vj], bsizes[b]);
                    if (q != n) {
                        nhi = (size_t)sqrt((double)n * (double)q);
                        break;
                    }
                }
                char nr[48], bs[48], rr[32];
                if (nhi == SIZE_MAX)
                    snprintf(nr, sizeof nr, "%zu-*", nlo);
                else
                    snprintf(nr, sizeof nr, "%zu-%zu", nlo, nhi);
                size_t lo = b ? bsizes[b - 1] + 1 : 1;
                if (b + 1 == NB)
                    snprintf(bs, sizeof bs, "%zu-*", lo);
                else
                    snprintf(bs, sizeof bs, "%zu-%zu", lo, bsizes[b]);
                for (size_t r = 1; r < NR;) {
                    int m = robust_winner(dir, vi, b, r), a = robust_alt(dir, vi, b, r, m);
                    size_t r2 = r;
                    while (r2 + 1 < NR && robust_winner(dir, vi, b, r2 + 1) == m &&
                           robust_alt(dir, vi, b, r2 + 1, m) == a)
                        r2++;
                    int rlo = r > 1 ? ratios[r - 1] + 1 : 1;
                    if (r2 + 1 == NR)
                        snprintf(rr, sizeof rr, "%d-*", rlo);
                    else
                        snprintf(rr, sizeof rr, "%d-%d", rlo, ratios[r2]);
                    char mm[32];
                    snprintf(mm, sizeof mm, "%s%s%s", shmemi_strided_method_name(m), a ? "/" : "",
                             a ? shmemi_strided_method_name(a) : "");
                    fprintf(f, "%-3s %-10s %-6s %-10s %s\n", dir ? "get" : "put", bs, rr, nr, mm);
                    r = r2 + 1;
                }
            }
    fclose(f);
    printf("table written to %s (use: SHMEMQ_STRIDED_TABLE=%s)\n", path, path);
    /* The rules must send every strided cell to the method chosen for it: load them and
     * ask the library (this replaces the table in use: the last thing the bench does). */
    int mismatches = 0;
    if (shmemi_strided_load_table(path) == 0) {
        for (int dir = 0; dir < 2; dir++)
            for (int vi = 0; vi < nvol; vi++)
                for (size_t b = 0; b < NB; b++)
                    for (size_t r = 1; r < NR; r++) {
                        size_t blk = bsizes[b], n = nblocks_of(volumes[vi], blk);
                        ptrdiff_t st = (ptrdiff_t)(blk * (size_t)ratios[r]);
                        if (n > 1 && shmemi_strided_choose(dir, blk, st, st, n) !=
                                         robust_winner(dir, vi, b, r))
                            mismatches++;
                    }
        printf("table maps every strided cell to its chosen method: %s (%d mismatches)\n",
               mismatches ? "NO" : "yes", mismatches);
    }
}

/* Cost of the tuned call's dispatch: one table lookup, in ns. */
static double lookup_ns(void)
{
    volatile int sink = 0;
    const int iters = 1 << 20;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        size_t blk = (size_t)8 << (i & 7);
        sink += shmemi_strided_choose(i & 1, blk, (ptrdiff_t)(blk << (i >> 3 & 3)),
                                      (ptrdiff_t)blk, (size_t)(i & 4095) + 2);
    }
    (void)sink;
    return (MPI_Wtime() - t0) / iters * 1e9;
}

int main(int argc, char **argv)
{
    const char *vols = "4K,64K";
    int quick = 0;
    const char *table_out = NULL, *csv_out = NULL, *raw_out = NULL;
    int opt;
    const char *earlier[MAXALL];
    int nearlier = 0;
    while ((opt = getopt(argc, argv, "v:p:n:N:b:t:w:c:D:a:Aq")) != -1) {
        switch (opt) {
        case 'v': vols = optarg; break;
        case 'p': npasses = atoi(optarg); break;
        case 'n': min_rounds = atoi(optarg); break;
        case 'N': max_rounds = atoi(optarg); break;
        case 'b': budget = atof(optarg) / 1e3; break;
        case 't': rep_target = atof(optarg) / 1e6; break;
        case 'w': table_out = optarg; break;
        case 'c': csv_out = optarg; break;
        case 'D': raw_out = optarg; break;
        case 'A': write_alts = 1; break;
        case 'a':
            if (nearlier < MAXALL)
                earlier[nearlier++] = optarg;
            break;
        case 'q': quick = 1; break;
        default:
            fprintf(stderr, "usage: %s [-v volume[,volume..]] [-p passes] [-n min rounds] "
                            "[-N max rounds] [-b budget ms] [-t rep us] [-w table] [-c csv] "
                            "[-D raw reps csv] [-a earlier csv].. [-A] [-q]\n", argv[0]);
            return 2;
        }
    }
    if (quick)
        min_rounds = 5, max_rounds = 9, budget = 0.005;
    npasses = npasses < 1 ? 1 : npasses > MAXP ? MAXP : npasses;
    min_rounds = min_rounds < 3 ? 3 : min_rounds > MAXROUNDS ? MAXROUNDS : min_rounds;
    max_rounds = max_rounds < min_rounds ? min_rounds : max_rounds > MAXROUNDS ? MAXROUNDS
                                                                               : max_rounds;

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
    ref_remote = shmem_malloc(64);
    local = malloc(span_max);        /* source of puts, target of gets */
    unsigned char *model = malloc(span_max), *check = malloc(span_max);
    if (!remote || !local || !model || !check) {
        fprintf(stderr, "PE %d: out of memory (volume %zu)\n", me, vmax);
        shmem_global_exit(1);
    }
    if (me == 0 && raw_out && !(raw = fopen(raw_out, "w")))
        perror(raw_out);
    int failures = 0;
    double t_start = MPI_Wtime();
    for (int i = 0; i < 200 && me == 0; i++) /* the reference's undisturbed time */
        (void)ref_op();
    if (me == 0) {
        printf("# strided RMA methods, PE 0 <-> PE 1, volumes %s bytes per operation, %d "
               "pass(es); per cell %d..%d round-robin rounds (%.0f ms budget), reps of ~%.0f "
               "us; time = median of the fastest half of the reps\n", vols, npasses,
               min_rounds, max_rounds, budget * 1e3, rep_target * 1e6);
        printf("# dir bsize stride nblocks: vector blocks pack auto (us per operation)\n");
    }
    /* Each pass: every cell in order; then the cells the reference found disturbed are
     * timed again from scratch (twice at most), the load being likely gone by then. */
    for (int p = 0; p < npasses && me == 0; p++)
        for (int attempt = 0; attempt < 3; attempt++)
            for (int dir = 0; dir < 2; dir++)
                for (int vi = 0; vi < nvol; vi++)
                    for (size_t b = 0; b < NB; b++)
                        for (size_t r = 0; r < NR; r++) {
                            cell_t *c = &cells[p][dir][vi][b][r];
                            if (attempt > 0 && !c->disturbed)
                                continue;
                            size_t blk = bsizes[b], n = nblocks_of(volumes[vi], blk);
                            ptrdiff_t stride = (ptrdiff_t)(blk * (size_t)ratios[r]);
                            c->choice = ratios[r] == 1 || n == 1
                                            ? AUTO
                                            : shmemi_strided_choose(dir, blk, stride, stride, n);
                            failures += verify_cell(dir, b, r, blk, stride, n, model, check);
                            time_cell(c, dir, blk, stride, n);
                            print_cell(c, attempt ? "again: " : "", dir, blk, ratios[r], n);
                        }
    for (int p = 0; p < npasses; p++)
        for (int dir = 0; dir < 2; dir++)
            for (int vi = 0; vi < nvol; vi++)
                for (size_t b = 0; b < NB; b++)
                    for (size_t r = 0; r < NR; r++)
                        disturbed_cells += cells[p][dir][vi][b][r].disturbed;
    if (raw)
        fclose(raw);
    /* PE 1 is the target: it polls MPI without ever yielding its core (shmem_barrier_all
     * would sched_yield, and with other load on the node every method whose data moves
     * through the target's progress engine, such as target-side datatypes, would then be
     * timed with the target asleep). */
    shmem_quiet();
    {
        MPI_Request req;
        int done = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &req); /* matches only Ibarrier: both PEs use it */
        while (!done)
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
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
        fprintf(csv, "pass,dir,bsize_bytes,stride_ratio,nblocks,vector_us,blocks_us,pack_us,"
                     "auto_us,table_choice,winner,auto_over_best,reps,ops_per_rep,"
                     "vector_min_us,blocks_min_us,pack_min_us,auto_min_us,rounds_dropped,"
                     "disturbed\n");
        int ncells = 0, nout[MAXP] = {0};
        double worst[MAXP] = {0}, logsum = 0;
        int nlog = 0;
        for (int p = 0; p < npasses; p++)
            for (int dir = 0; dir < 2; dir++)
                for (int vi = 0; vi < nvol; vi++)
                    for (size_t b = 0; b < NB; b++)
                        for (size_t r = 0; r < NR; r++) {
                            cell_t *c = &cells[p][dir][vi][b][r];
                            double ratio = c->ratio;
                            fprintf(csv, "%d,%s,%zu,%d,%zu,%.3f,%.3f,%.3f,%.3f,%s,%s,%.3f,%d,%d,"
                                         "%.3f,%.3f,%.3f,%.3f,%d,%d\n",
                                    p + 1, dir ? "get" : "put", bsizes[b], ratios[r],
                                    nblocks_of(volumes[vi], bsizes[b]), c->t[VECTOR] * 1e6,
                                    c->t[BLOCKS] * 1e6, c->t[PACK] * 1e6, c->t[AUTO] * 1e6,
                                    c->choice ? shmemi_strided_method_name(c->choice) : "contig",
                                    shmemi_strided_method_name(c->winner), ratio, c->reps[AUTO],
                                    c->kops, c->min[VECTOR] * 1e6, c->min[BLOCKS] * 1e6,
                                    c->min[PACK] * 1e6, c->min[AUTO] * 1e6, c->dropped,
                                    c->disturbed);
                            if (p == 0)
                                ncells++;
                            if (ratio > 1.10)
                                nout[p]++;
                            if (ratio > worst[p])
                                worst[p] = ratio;
                            if (c->choice) { /* the tuned call against its own method forced */
                                logsum += log(c->t[AUTO] / c->t[c->choice]);
                                nlog++;
                            }
                        }
        if (csv != stdout)
            fclose(csv);

        for (int p = 0; p < npasses; p++) {
            printf("\n# pass %d winners (rows: block size x count; columns: stride/block 1 2 4 "
                   "8 16 32 64; V=vector B=blocks P=pack; * = tuned call not within 10%% of "
                   "the best)\n", p + 1);
            for (int dir = 0; dir < 2; dir++)
                for (int vi = 0; vi < nvol; vi++) {
                    printf("%s, volume %zu B:\n", dir ? "get" : "put", volumes[vi]);
                    for (size_t b = 0; b < NB; b++) {
                        printf("  %6zu B x %5zu ", bsizes[b], nblocks_of(volumes[vi], bsizes[b]));
                        for (size_t r = 0; r < NR; r++) {
                            cell_t *c = &cells[p][dir][vi][b][r];
                            printf(" %c%c", "?VBP"[c->winner],
                                   c->ratio > 1.10 ? '*' : ' ');
                        }
                        printf("\n");
                    }
                }
        }
        printf("\n");
        for (int p = 0; p < npasses; p++)
            printf("pass %d: tuned call within 10%% of the best method in every cell: %s (%d of "
                   "%d cells within; worst %.3fx)\n", p + 1, nout[p] ? "NO" : "YES",
                   ncells - nout[p], ncells, worst[p]);
        printf("tuned call over its method forced (dispatch cost), geometric mean over %d "
               "strided cells: %.3fx\n", nlog, nlog ? exp(logsum / nlog) : 1.0);
        printf("table lookup: %.1f ns per call\n", lookup_ns());
        printf("reference 1-byte put+quiet: best %.2f us; cells still disturbed after two "
               "retries (< 3 undisturbed rounds, all rounds counted): %d\n", ref_best * 1e6, disturbed_cells);
        printf("verification: %s (%d failures)\n", failures ? "FAILED" : "all variants correct",
               failures);
        printf("elapsed %.1f s\n", MPI_Wtime() - t_start);
        if (table_out) {
            nall = npasses;
            for (int i = 0; i < nearlier; i++)
                (void)read_passes(earlier[i]);
            write_table(table_out, vols);
        }
    }
    shmem_barrier_all();
    shmem_free(ref_remote);
    shmem_free(remote);
    free(local);
    free(model);
    free(check);
    shmem_finalize();
    return failures ? 1 : 0;
}
