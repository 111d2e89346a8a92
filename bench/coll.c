/* coll.c (bench/coll): latency of the OpenSHMEM team collectives on SHMEM_TEAM_WORLD
 * against the same collective of raw MPI on MPI_COMM_WORLD, same buffers, same run.
 *
 *   barrier    shmem_barrier_all             MPI_Barrier
 *   sync       shmem_team_sync(WORLD)        MPI_Barrier
 *   broadcast  shmem_broadcastmem (root n-1) MPI_Bcast
 *   fcollect   shmem_fcollectmem             MPI_Allgather
 *   collect    shmem_collectmem              MPI_Allgatherv
 *   reduce     shmem_int64_sum_reduce        MPI_Allreduce(MPI_INT64_T, MPI_SUM)
 *   alltoall   shmem_alltoallmem             MPI_Alltoall
 *
 * Two more variants on a 1.5 library (this one): the same shmem collective on copies of
 * WORLD made with SHMEMQ_COLL_HIER=0 ("flat": the MPI collective on the team's
 * communicator) and SHMEMQ_COLL_HIER=1 ("hier": node step, leaders' MPI step, node step,
 * whatever the size); "shmem" on WORLD is what the auto rule picks. Run it across nodes
 * (SHMEMQ_NODE_PES=2 -n 4 simulates two nodes of two) for the hierarchical comparison.
 * And "v14": the 1.4 active-set routines over all PEs (shmem_broadcast64,
 * shmem_fcollect64, shmem_collect64, shmem_longlong_sum_to_all, shmem_alltoall64; two
 * pSync sets alternating), which OSU's osu_oshm_* call and a 1.4 library times as "shmem".
 *
 * bytes is what one PE contributes (broadcast: the message; alltoall: one block).
 * Sizes 8 B .. -m bytes (default 1 MiB) by factors of 8, and -m itself. Each (op, size) runs -r reps
 * (default 5); within a rep the variants alternate (interleaved pairs, so a slow
 * phase of the machine hits both); the best rep's mean per call is reported, timed from
 * the variant's own barrier (the library's for its variants). -M caps raw MPI's calls
 * per timing (with more PEs than cores a busy-polling MPI call takes milliseconds). Every
 * variant's last result is checked in full against values computed without the library.
 * Only the standard OpenSHMEM API and MPI are used, so the same file builds against
 * other OpenSHMEMs that run on MPI; against a 1.4 library (Open MPI 4.1's OSHMEM, oshcc)
 * it times the active-set routines over all PEs instead (see bench/README.md).
 *
 * -O times the way OSU's osu_oshm_* benchmarks do, for a side-by-side reading with
 * them: each call is timed alone with the variant's own barrier between calls (not
 * timed; barrier and sync run back to back), and the figure is the mean over PEs of each
 * PE's mean call, where the default reports the slowest PE's mean over back-to-back
 * calls. A root that returns before the others (broadcast) counts for what it is under
 * -O; back to back it can run ahead into the next call.
 *
 * Output: one line per result "op variant bytes us/call" and CSV (op,variant,npes,bytes,
 * usec) to -o FILE or after the human lines. Exit status 1 on any wrong answer. */
#include <shmem.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OP_BARRIER, OP_SYNC, OP_BCAST, OP_FCOLLECT, OP_COLLECT, OP_REDUCE, OP_ALLTOALL, N_OPS };
static const char *op_name[N_OPS] = {"barrier", "sync",   "broadcast", "fcollect",
                                     "collect", "reduce", "alltoall"};

static int me, npes;
static unsigned char *src, *dst; /* symmetric, npes * maxbytes each */
static int *counts, *displs;     /* MPI_Allgatherv */
#if SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION < 5
/* OpenSHMEM 1.4 libraries (Open MPI 4.1's OSHMEM): no teams. */
#define BENCH_LEGACY 1
#endif

enum { V_SHMEM, V_MPI, V_FLAT, V_HIER, V_V14, N_VARS };
static const char *var_name[N_VARS] = {"shmem", "mpi", "flat", "hier", "v14"};
static int nvars = 2;
#ifndef BENCH_LEGACY
static shmem_team_t var_team[N_VARS]; /* V_SHMEM: WORLD; V_FLAT, V_HIER: copies */
#endif

static unsigned char pattern(int pe, size_t i, int salt)
{
    return (unsigned char)(pe * 131 + i * 7 + (size_t)salt * 29 + 1);
}

static void fill(int op, size_t bytes, int salt)
{
    if (op == OP_REDUCE) {
        int64_t *s = (int64_t *)(void *)src;
        for (size_t i = 0; i < bytes / 8; i++)
            s[i] = (int64_t)(me + 1) * (int64_t)(i + 1) + salt;
    } else if (op == OP_ALLTOALL) {
        for (int j = 0; j < npes; j++)
            for (size_t i = 0; i < bytes; i++)
                src[(size_t)j * bytes + i] = pattern(me, i + (size_t)j * 3, salt);
    } else {
        for (size_t i = 0; i < bytes; i++)
            src[i] = pattern(me, i, salt);
    }
    memset(dst, 0xEE, (size_t)npes * bytes);
}

/* 0 when dst holds what op over bytes must leave there. */
static int check(int op, size_t bytes, int salt)
{
    if (op == OP_BCAST) {
        for (size_t i = 0; i < bytes; i++)
            if (dst[i] != pattern(npes - 1, i, salt))
                return 1;
    } else if (op == OP_FCOLLECT || op == OP_COLLECT) {
        for (int j = 0; j < npes; j++)
            for (size_t i = 0; i < bytes; i++)
                if (dst[(size_t)j * bytes + i] != pattern(j, i, salt))
                    return 1;
    } else if (op == OP_REDUCE) {
        const int64_t *d = (const int64_t *)(const void *)dst;
        int64_t pesum = (int64_t)npes * (npes + 1) / 2;
        for (size_t i = 0; i < bytes / 8; i++)
            if (d[i] != pesum * (int64_t)(i + 1) + (int64_t)npes * salt)
                return 1;
    } else if (op == OP_ALLTOALL) {
        for (int j = 0; j < npes; j++)
            for (size_t i = 0; i < bytes; i++)
                if (dst[(size_t)j * bytes + i] != pattern(j, i + (size_t)me * 3, salt))
                    return 1;
    }
    return 0;
}

/* The 1.4 active-set routines over all PEs, alternating two pSync sets (a set is reused
 * only after the next call): a 1.4 library's "shmem" (no teams there), a 1.5 one's "v14". */
static long psync[2][SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE
                         ? (SHMEM_REDUCE_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE
                                ? SHMEM_REDUCE_SYNC_SIZE : SHMEM_ALLTOALL_SYNC_SIZE)
                         : (SHMEM_COLLECT_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE
                                ? SHMEM_COLLECT_SYNC_SIZE : SHMEM_ALLTOALL_SYNC_SIZE)];
static long long *pwrk;
static int pk;

static void run_v14(int op, size_t bytes)
{
    long *ps = psync[pk ^= 1];
    size_t w = bytes / 8;
    switch (op) {
    case OP_BARRIER: shmem_barrier_all(); break;
    case OP_SYNC: shmem_sync_all(); break;
    case OP_BCAST:
        shmem_broadcast64(dst, src, w, npes - 1, 0, 0, npes, ps);
        if (me == npes - 1)
            memcpy(dst, src, bytes); /* 1.4 leaves the root's dest alone */
        break;
    case OP_FCOLLECT: shmem_fcollect64(dst, src, w, 0, 0, npes, ps); break;
    case OP_COLLECT: shmem_collect64(dst, src, w, 0, 0, npes, ps); break;
    case OP_REDUCE:
        shmem_longlong_sum_to_all((long long *)(void *)dst, (long long *)(void *)src, (int)w, 0,
                                  0, npes, pwrk, ps);
        break;
    case OP_ALLTOALL: shmem_alltoall64(dst, src, w, 0, 0, npes, ps); break;
    }
}

static void run_shmem(int op, size_t bytes, int v)
{
#ifdef BENCH_LEGACY
    (void)v;
    run_v14(op, bytes);
#else
    if (v == V_V14) {
        run_v14(op, bytes);
        return;
    }
    shmem_team_t t = var_team[v];
    switch (op) {
    case OP_BARRIER:
        if (v == V_SHMEM)
            shmem_barrier_all();
        else
            shmem_team_sync(t); /* no barrier_all on other teams: the same step */
        break;
    case OP_SYNC: shmem_team_sync(t); break;
    case OP_BCAST: shmem_broadcastmem(t, dst, src, bytes, npes - 1); break;
    case OP_FCOLLECT: shmem_fcollectmem(t, dst, src, bytes); break;
    case OP_COLLECT: shmem_collectmem(t, dst, src, bytes); break;
    case OP_REDUCE:
        shmem_int64_sum_reduce(t, (int64_t *)(void *)dst, (const int64_t *)(const void *)src,
                               bytes / 8);
        break;
    case OP_ALLTOALL: shmem_alltoallmem(t, dst, src, bytes); break;
    }
#endif
}

static void run_mpi(int op, size_t bytes)
{
    int c = (int)bytes;
    switch (op) {
    case OP_BARRIER:
    case OP_SYNC: MPI_Barrier(MPI_COMM_WORLD); break;
    case OP_BCAST:
        if (me == npes - 1)
            memcpy(dst, src, bytes); /* the root's dest, as shmem_broadcastmem leaves it */
        MPI_Bcast(dst, c, MPI_BYTE, npes - 1, MPI_COMM_WORLD);
        break;
    case OP_FCOLLECT:
        MPI_Allgather(src, c, MPI_BYTE, dst, c, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case OP_COLLECT:
        MPI_Allgatherv(src, c, MPI_BYTE, dst, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case OP_REDUCE:
        MPI_Allreduce(src, dst, c / 8, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        break;
    case OP_ALLTOALL: MPI_Alltoall(src, c, MPI_BYTE, dst, c, MPI_BYTE, MPI_COMM_WORLD); break;
    }
}

/* One call of op by variant v. */
static void run_variant(int op, size_t bytes, int v)
{
    if (v == V_MPI)
        run_mpi(op, bytes);
    else
        run_shmem(op, bytes, v);
}

/* The variant's own barrier (OSU's method separates calls with it). */
static void var_barrier(int v)
{
    if (v == V_MPI)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        shmem_barrier_all();
}

/* Microseconds per call on this PE: back to back, or (osu) each call alone between
 * barriers, as osu_oshm_* time them. */
static double time_calls(int op, size_t bytes, int v, long calls, int osu)
{
    if (!osu || op <= OP_SYNC) {
        double t0 = MPI_Wtime();
        for (long k = 0; k < calls; k++) {
            run_variant(op, bytes, v);
        }
        return (MPI_Wtime() - t0) / (double)calls * 1e6;
    }
    double sum = 0;
    for (long k = 0; k < calls; k++) {
        double t0 = MPI_Wtime();
        run_variant(op, bytes, v);
        sum += MPI_Wtime() - t0;
        var_barrier(v);
    }
    return sum / (double)calls * 1e6;
}

/* 8, 64, 512, ... by factors of 8, and maxbytes itself last. */
static size_t next_size(size_t bytes, size_t maxbytes)
{
    return bytes < maxbytes && bytes * 8 > maxbytes ? maxbytes : bytes * 8;
}

static void usage(void)
{
    if (me == 0)
        fprintf(stderr, "usage: bench/coll [-r reps] [-i iters] [-M mpi_iters] [-m maxbytes] [-c ops] "
                        "[-O] [-o file]\n"
                        "  -O: OSU's timing (each call alone between barriers, mean over PEs)\n"
                        "  ops: comma list of barrier,sync,broadcast,fcollect,collect,reduce,"
                        "alltoall\n");
    shmem_global_exit(2);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int reps = 5, base_iters = 2000, osu = 0, opt;
    long mpi_iters = 0; /* -M: fewer calls for raw MPI (it busy-polls: ms a call oversubscribed) */
    size_t maxbytes = (size_t)1 << 20;
    const char *ops = NULL, *out = NULL;
    while ((opt = getopt(argc, argv, "r:i:M:m:c:o:O")) != -1) {
        switch (opt) {
        case 'r': reps = atoi(optarg); break;
        case 'i': base_iters = atoi(optarg); break;
        case 'M': mpi_iters = atol(optarg); break;
        case 'm': maxbytes = (size_t)strtoull(optarg, NULL, 0); break;
        case 'c': ops = optarg; break;
        case 'o': out = optarg; break;
        case 'O': osu = 1; break;
        default: usage();
        }
    }
    if (reps < 1 || base_iters < 1 || maxbytes < 8)
        usage();
    src = shmem_malloc((size_t)npes * maxbytes);
    dst = shmem_malloc((size_t)npes * maxbytes);
    counts = malloc(sizeof(int) * 2 * (size_t)npes);
    if (!src || !dst || !counts) {
        fprintf(stderr, "bench/coll: out of memory\n");
        shmem_global_exit(1);
    }
    displs = counts + npes;
    for (int i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof psync[i] / sizeof(long); k++)
            psync[i][k] = SHMEM_SYNC_VALUE;
    size_t nw = maxbytes / 8 / 2 + 1;
    pwrk = shmem_malloc(sizeof(long long) *
                        (nw > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? nw : SHMEM_REDUCE_MIN_WRKDATA_SIZE));
    if (!pwrk) {
        fprintf(stderr, "bench/coll: out of memory\n");
        shmem_global_exit(1);
    }
    shmem_barrier_all();
#ifndef BENCH_LEGACY
    /* The flat and hierarchical copies of WORLD: the setting is read at a team's first
     * collective, so each copy syncs once under its value. */
    const char *was = getenv("SHMEMQ_COLL_HIER");
    char *keep = was ? strdup(was) : NULL;
    var_team[V_SHMEM] = SHMEM_TEAM_WORLD;
    for (int v = V_FLAT; v <= V_HIER; v++) {
        setenv("SHMEMQ_COLL_HIER", v == V_FLAT ? "0" : "1", 1);
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &var_team[v]) != 0) {
            fprintf(stderr, "bench/coll: team split failed\n");
            shmem_global_exit(1);
        }
        shmem_team_sync(var_team[v]);
    }
    if (keep)
        setenv("SHMEMQ_COLL_HIER", keep, 1);
    else
        unsetenv("SHMEMQ_COLL_HIER");
    free(keep);
    nvars = N_VARS;
#endif
    enum { MAXRES = 512 };
    static struct { int op, variant; size_t bytes; double us; } res[MAXRES];
    int nres = 0, bad = 0;
    for (int op = 0; op < N_OPS; op++) {
        if (ops && !strstr(ops, op_name[op]))
            continue;
        for (size_t bytes = 8; bytes <= maxbytes; bytes = next_size(bytes, maxbytes)) {
            if (op <= OP_SYNC && bytes > 8)
                break; /* no data: one size */
            for (int j = 0; j < npes; j++) {
                counts[j] = (int)bytes;
                displs[j] = (int)(bytes * (size_t)j);
            }
            /* fewer calls for big messages: about the same bytes per timing */
            long it = bytes <= 4096 ? base_iters : (long)(base_iters * 4096.0 / (double)bytes);
            if (it < 10)
                it = 10;
            double best[N_VARS] = {1e30, 1e30, 1e30, 1e30, 1e30};
            for (int rep = 0; rep < reps; rep++) {
                for (int v = 0; v < nvars; v++) {
                    int salt = rep * N_VARS + v;
                    fill(op, bytes, salt);
                    MPI_Barrier(MPI_COMM_WORLD);
                    /* warm up (and the first call of a team may set things up) */
                    run_variant(op, bytes, v);
                    MPI_Barrier(MPI_COMM_WORLD);
                    /* and the measured library's own barrier: with more PEs than cores,
                     * PEs leave a busy-polling MPI_Barrier up to a scheduler tick apart,
                     * which short timings would otherwise count (40 us a call at -i 100) */
                    if (v != V_MPI)
                        shmem_barrier_all();
                    long calls = v == V_MPI && mpi_iters > 0 && mpi_iters < it ? mpi_iters : it;
                    double t = time_calls(op, bytes, v, calls, osu), tall;
                    /* the slowest PE, or OSU's mean over PEs */
                    MPI_Allreduce(&t, &tall, 1, MPI_DOUBLE, osu ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD);
                    if (osu)
                        tall /= npes;
                    if (tall < best[v])
                        best[v] = tall;
                    int wrong = check(op, bytes, salt);
                    if (wrong) {
                        fprintf(stderr, "PE %d: WRONG ANSWER %s %s %zu bytes\n", me, op_name[op],
                                var_name[v], bytes);
                        bad++;
                    }
                }
            }
            for (int v = 0; v < nvars; v++) {
                if (me == 0)
                    printf("%-9s %-5s %2d PEs %8zu bytes %10.3f us/call\n", op_name[op],
                           var_name[v], npes, bytes, best[v]);
                if (nres < MAXRES) {
                    res[nres].op = op;
                    res[nres].variant = v;
                    res[nres].bytes = bytes;
                    res[nres++].us = best[v];
                }
            }
            if (me == 0)
                printf("%-9s ratio %2d PEs %8zu bytes %10.2f x (shmem / mpi)\n", op_name[op],
                       npes, bytes, best[V_SHMEM] / best[V_MPI]);
            if (me == 0 && nvars > V_HIER)
                printf("%-9s h/f   %2d PEs %8zu bytes %10.2f x (hier / flat)\n", op_name[op],
                       npes, bytes, best[V_HIER] / best[V_FLAT]);
            fflush(stdout);
        }
    }
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        FILE *f = out ? fopen(out, "w") : stdout;
        if (!f) {
            perror(out);
            f = stdout;
        }
        fprintf(f, "op,variant,npes,bytes,usec\n");
        for (int i = 0; i < nres; i++)
            fprintf(f, "%s,%s,%d,%zu,%.4f\n", op_name[res[i].op], var_name[res[i].variant],
                    npes, res[i].bytes, res[i].us);
        if (f != stdout)
            fclose(f);
        printf("%s\n", anybad ? "WRONG ANSWERS" : "all answers checked");
    }
#ifndef BENCH_LEGACY
    shmem_team_destroy(var_team[V_FLAT]);
    shmem_team_destroy(var_team[V_HIER]);
#endif
    shmem_free(pwrk);
    shmem_free(dst);
    shmem_free(src);
    free(counts);
    shmem_finalize();
    return anybad != 0;
}
