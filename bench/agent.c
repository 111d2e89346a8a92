/* agent.c: what the node agent gives and costs (issue 21; docs/design.md, "The node agent").
 *
 *  latency  PE 0 makes round trips to PE 1 while PE 1 is either active (waiting inside
 *           the library, shmem_long_wait_until) or computing (no library call; only its
 *           node's agent, if any, serves it): a blocking shmem_long_atomic_fetch_add
 *           (MPI accumulate, served by the target's MPI progress) and a comm-queue flush of
 *           one add over the AM path (SHMEMQ_COMM_PATH=am: a message the target's engine
 *           applies, then a flush reply). Median and 90th percentile per round trip.
 *  compute  every PE times a fixed compute loop (no library call) many times; run it with
 *           the agent on and off (SHMEMQ_ASYNC_PROGRESS) in alternation and compare: what
 *           an idle agent costs a compute-bound PE. Median over the repetitions, mean over
 *           PEs; and the CPU time the agent threads (named shmemq-agent) used meanwhile,
 *           as a share of one core: the cost that does not depend on the machine's load.
 *
 * Run PE 1 off PE 0's node (SHMEMQ_NODE_PES=1) for the agent to matter; others only join.
 * Every result: a line with its unit, and a CSV line. Checks: every fetch returns the
 * previous value plus one and the counters end at the number of operations sent.
 * Usage: agent [-r round trips] [-c compute reps] [-m ms per compute chunk] [-s steps]
 *              [-L | -C]
 *   -s: steps per compute chunk (default: calibrated to -m on the slowest PE; give the same
 *   -s to runs that are compared), -L latency only, -C compute only. */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long fa_ctr, q_ctr, done;
static volatile double sink;

/* Arithmetic for `iters` steps, no memory traffic, no library call. */
static double spin_compute(long iters, double x)
{
    for (long i = 0; i < iters; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* CPU time (ns) of this process's agent threads so far (/proc/self/task/<tid>/schedstat). */
static double agent_cpu_ns(void)
{
    DIR *d = opendir("/proc/self/task");
    double ns = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int is_agent = fgets(name, sizeof name, f) && strncmp(name, "shmemq-agent", 12) == 0;
        fclose(f);
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        unsigned long long run = 0;
        if (is_agent && (f = fopen(path, "r")) != NULL) {
            if (fscanf(f, "%llu", &run) == 1)
                ns += (double)run;
            fclose(f);
        }
    }
    closedir(d);
    return ns;
}

static const char *agent_env(void)
{
    const char *e = getenv("SHMEMQ_ASYNC_PROGRESS");
    return e && *e ? e : "auto";
}

int main(int argc, char **argv)
{
    int rounds = 2000, reps = 40, opt, do_lat = 1, do_comp = 1;
    double chunk_ms = 20;
    long steps = 0;
    while ((opt = getopt(argc, argv, "r:c:m:s:LC")) != -1) {
        switch (opt) {
        case 'r': rounds = atoi(optarg); break;
        case 'c': reps = atoi(optarg); break;
        case 'm': chunk_ms = atof(optarg); break;
        case 's': steps = atol(optarg); break;
        case 'L': do_comp = 0; break;
        case 'C': do_lat = 0; break;
        default:
            fprintf(stderr, "usage: %s [-r round trips] [-c compute reps] [-m ms] [-L|-C]\n",
                    argv[0]);
            return 2;
        }
    }
    if (rounds < 10 || reps < 3 || chunk_ms <= 0 || steps < 0) {
        fprintf(stderr, "%s: -r >= 10, -c >= 3, -m > 0, -s >= 0\n", argv[0]);
        return 2;
    }
    setenv("SHMEMQ_COMM_PATH", "am", 1); /* read at queue create: the AM path off the node */
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    const char *npes_env = getenv("SHMEMQ_NODE_PES");
    if (do_lat && n < 2) {
        if (me == 0)
            fprintf(stderr, "%s: the latency part needs 2 PEs\n", argv[0]);
        do_lat = 0;
    }
    if (do_lat) {
        double *lat = malloc((size_t)rounds * sizeof *lat);
        shmem_queue_t q = NULL;
        shmem_queue_config_t c;
        memset(&c, 0, sizeof c);
        c.qtype = SHMEM_QUEUE_COMM;
        c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
        c.max_elems = 1024;
        c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
        c.op_type = SHMEM_OP_ATOMIC_ADD;
        c.pe_type = SHMEM_PE_ALL;
        if (me == 0 && shmem_queue_comm_create(&q, &c) != 0) {
            fprintf(stderr, "%s: shmem_queue_comm_create failed\n", argv[0]);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        const char *states[2] = {"active", "computing"}, *ops[2] = {"fetch_add", "commq_am_flush"};
        long sent_fa = 0, sent_q = 0;
        for (int st = 0; st < 2; st++) {
            for (int op = 0; op < 2; op++) {
                done = 0;
                shmem_barrier_all();
                if (me == 1) {
                    if (st == 0) {
                        shmem_long_wait_until(&done, SHMEM_CMP_EQ, 1);
                    } else {
                        double x = 1.0, t0 = now();
                        while (*(volatile long *)&done != 1 && now() - t0 < 120)
                            x = spin_compute(2000, x);
                        sink = x;
                        if (*(volatile long *)&done != 1)
                            errors++, fprintf(stderr, "PE 1: never released\n");
                    }
                } else if (me == 0) {
                    const long one = 1;
                    for (int r = -10; r < rounds; r++) { /* 10 warm-up trips */
                        double t0 = now();
                        if (op == 0) {
                            long old = shmem_long_atomic_fetch_add(&fa_ctr, 1, 1);
                            if (old != sent_fa)
                                errors++;
                            sent_fa++;
                        } else {
                            if (shmem_long_queue_comm_push(q, &q_ctr, &one, 1, 1,
                                                           SHMEM_OP_ATOMIC_ADD) != 0 ||
                                shmem_queue_local_flush(q) != 0)
                                errors++;
                            sent_q++;
                        }
                        if (r >= 0)
                            lat[r] = (now() - t0) * 1e6;
                    }
                    qsort(lat, (size_t)rounds, sizeof *lat, cmp_double);
                    double med = lat[rounds / 2], p90 = lat[rounds * 9 / 10];
                    printf("latency %-15s target %-9s median %8.1f us  p90 %8.1f us  (%d round "
                           "trips, %d PEs, SHMEMQ_NODE_PES=%s, SHMEMQ_ASYNC_PROGRESS=%s)\n",
                           ops[op], states[st], med, p90, rounds, n, npes_env ? npes_env : "unset",
                           agent_env());
                    printf("CSV,agent,latency,%s,%s,%d,%s,%s,%d,%.2f,%.2f\n", ops[op], states[st], n,
                           npes_env ? npes_env : "", agent_env(), rounds, med, p90);
                    fflush(stdout);
                    shmem_long_atomic_set(&done, 1, 1);
                    shmem_quiet();
                }
                shmem_barrier_all();
            }
        }
        if (me == 0 && shmem_queue_comm_destroy(q) != 0)
            errors++;
        shmem_barrier_all();
        if (me == 1 && (fa_ctr != 2L * (rounds + 10) || q_ctr != 2L * (rounds + 10))) {
            errors++;
            fprintf(stderr, "PE 1: counters %ld and %ld, expected %ld each\n", fa_ctr, q_ctr,
                    2L * (rounds + 10));
        }
        if (me == 0 && (sent_fa != 2L * (rounds + 10) || sent_q != 2L * (rounds + 10)))
            errors++;
        free(lat);
    }
    if (do_comp) {
        /* iterations for chunk_ms on this PE, then the slowest PE's count everywhere */
        long iters = 1 << 16;
        double x = 1.0;
        for (;;) {
            double t0 = now();
            x = spin_compute(iters, x);
            if (now() - t0 > chunk_ms * 1e-3 / 4 || iters > (1L << 40))
                break;
            iters *= 2;
        }
        double t0 = now();
        x = spin_compute(iters, x);
        long mine = (long)(iters * (chunk_ms * 1e-3 / (now() - t0))), all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        if (steps > 0)
            all = steps;
        double *t = malloc((size_t)reps * sizeof *t);
        shmem_barrier_all();
        double cpu0 = agent_cpu_ns(), wall0 = now();
        for (int r = 0; r < reps; r++) {
            double s = now();
            x = spin_compute(all, x);
            t[r] = (now() - s) * 1e3;
        }
        double share = (agent_cpu_ns() - cpu0) / ((now() - wall0) * 1e9), shares = 0;
        MPI_Allreduce(&share, &shares, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sink = x;
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        double med = t[reps / 2], sum = 0;
        MPI_Allreduce(&med, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (!(x > 0))
            errors++;
        if (me == 0) {
            printf("compute %10.3f ms per chunk (median of %d, mean over %d PEs; %ld steps; "
                   "SHMEMQ_NODE_PES=%s, SHMEMQ_ASYNC_PROGRESS=%s)\n",
                   sum / n, reps, n, all, npes_env ? npes_env : "unset", agent_env());
            printf("agent_cpu %8.3f %% of one core (all agent threads of the job, during the "
                   "compute loops)\n", 100 * shares);
            printf("CSV,agent,compute,%d,%s,%s,%d,%ld,%.4f,%.5f\n", n, npes_env ? npes_env : "",
                   agent_env(), reps, all, sum / n, 100 * shares);
        }
        free(t);
    }
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0 && total)
        fprintf(stderr, "agent: %d check(s) failed\n", total);
    shmem_finalize();
    return total != 0;
}
