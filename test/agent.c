/* agent.c: the node agent's start, stop and failure (issue 21), as the user sees them.
 * Run by test/agent.sh, which checks the output, the exit status and that the job ends
 * within a bound. Usage: agent <case>
 *   where      every PE says how many node-agent threads its process runs (threads
 *              named "shmemq-agent" in /proc/self/task), then checks a computing target:
 *              PEs send adds to the last node leader, which computes until they arrived
 *   finalize   every PE sends atomics to every other PE and a put to the next, then goes
 *              straight to shmem_finalize (no barrier): finalize stops a running agent
 *              while traffic is in flight; each PE checks what it received first
 *   funneled   the program initialises MPI itself at MPI_THREAD_FUNNELED, then shmem_init:
 *              the agent cannot start (each leader says so once on stderr); puts, fetching
 *              atomics and barriers between PEs that are inside the library still
 *              complete (no hang), then shmem_finalize and MPI_Finalize */
#include <dirent.h>
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Threads of this process whose name is "shmemq-agent". */
static int agent_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fgets(name, sizeof name, f))
                n += strncmp(name, "shmemq-agent", 12) == 0;
            fclose(f);
        }
    }
    closedir(d);
    return n;
}

static long counter, words[64];
static char block[4096];

static int check_block(int from)
{
    for (int i = 0; i < (int)sizeof block; i++)
        if (block[i] != (char)(from * 7 + i))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <case>\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int bad = 0;
    if (strcmp(mode, "where") == 0) {
        shmem_init();
        int me = shmem_my_pe(), n = shmem_n_pes();
        printf("PE %d: agent threads %d\n", me, agent_threads());
        fflush(stdout);
        shmem_barrier_all();
        /* the last node leader computes (no library call) until every other PE's adds
         * arrived: its agent serves them (a PE that is not its node's leader is served
         * once operations for it go to the leader, which this library does not do yet) */
        const int per = 200;
        int leader = shmem_team_my_pe(SHMEM_TEAM_SHARED) == 0 ? me : -1, target = 0;
        MPI_Allreduce(&leader, &target, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (me == target) {
            double t0 = now(), x = 1.0;
            while (*(volatile long *)&counter < (long)(n - 1) * per && now() - t0 < 30.0)
                for (int i = 0; i < 10000; i++)
                    x = x * 1.0000001 + 1e-9;
            bad = *(volatile long *)&counter != (long)(n - 1) * per || !(x > 0);
            printf("PE %d: computed while %ld adds arrived (want %ld)\n", me,
                   *(volatile long *)&counter, (long)(n - 1) * per);
        } else {
            for (int i = 0; i < per; i++)
                shmem_long_atomic_add(&counter, 1, target);
            shmem_quiet();
        }
        shmem_barrier_all();
    } else if (strcmp(mode, "finalize") == 0) {
        shmem_init();
        int me = shmem_my_pe(), n = shmem_n_pes();
        char src[sizeof block];
        for (int i = 0; i < (int)sizeof src; i++)
            src[i] = (char)(me * 7 + i);
        for (int r = 0; r < 100; r++)
            for (int pe = 0; pe < n; pe++)
                shmem_long_atomic_add(&words[r % 64], 1, pe);
        shmem_putmem(block, src, sizeof block, (me + 1) % n);
        shmem_quiet();
        /* what others sent arrives complete before finalize returns (its barrier); this
         * PE's agent may be serving it right now */
        shmem_finalize();
        long sum = 0;
        for (int i = 0; i < 64; i++)
            sum += words[i];
        bad = sum != 100L * n || !check_block((me + n - 1) % n);
        printf("PE %d: finalized, %ld adds received (want %ld), block %s\n", me, sum, 100L * n,
               check_block((me + n - 1) % n) ? "right" : "WRONG");
        fflush(stdout);
        return bad;
    } else if (strcmp(mode, "funneled") == 0) {
        int provided = 0;
        if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return 3;
        shmem_init();
        int me = shmem_my_pe(), n = shmem_n_pes();
        char src[sizeof block];
        for (int i = 0; i < (int)sizeof src; i++)
            src[i] = (char)(me * 7 + i);
        shmem_putmem(block, src, sizeof block, (me + 1) % n);
        long got = 0;
        for (int r = 0; r < 50; r++)
            got += shmem_long_atomic_fetch_add(&counter, 1, (me + 1) % n) >= 0;
        shmem_barrier_all();
        bad = counter != 50 || got != 50 || !check_block((me + n - 1) % n);
        printf("PE %d: MPI level %d, counter %ld (want 50), block %s\n", me, provided, counter,
               check_block((me + n - 1) % n) ? "right" : "WRONG");
        fflush(stdout);
        shmem_finalize();
        MPI_Finalize();
        return bad;
    } else {
        fprintf(stderr, "unknown case %s\n", mode);
        return 2;
    }
    fflush(stdout);
    shmem_finalize();
    return bad;
}
