/* histogram.c: the bale histogram, three ways, each checked exactly.
 *
 * Every PE owns lnum_counts int64 counters (symmetric) and makes l_num_ups updates
 * "add 1 to global counter g", g random over all n_pes*lnum_counts counters; counter g
 * lives on PE g % n_pes at offset g / n_pes. The indices come from a counter-based
 * 64-bit RNG seeded per PE, so every run is reproducible.
 *   atomics  one shmem_int64_atomic_add per update
 *   commq    a communication queue carrying SHMEM_OP_ATOMIC_ADD
 *   dataq    a data queue: each update's offset goes to the owning PE, which pops it and
 *            increments locally; rounds of global flushes until every PE is done
 * Check: each PE counts its own updates per global counter, MPI_Reduce_scatter_block sums
 * those counts and gives each PE the expected values of its own counters (plain MPI,
 * independent of the code under test); the global sum must be n_pes*l_num_ups too.
 *
 *   mpiexec -n 2 examples/histogram [-n updates per PE] [-t counters per PE]
 * Prints "histogram <variant>: <Mupd/s> Mupd/s (<seconds> s) OK|WRONG"; exits 1 on WRONG.
 */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t mix64(uint64_t z) /* splitmix64 */
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int me, npes;
static int64_t l_num_ups = 20000, lnum_counts = 1000;
static int *dest_pe;         /* owner of update i */
static int64_t *dest_off;    /* offset of update i on its owner */
static int64_t *lcounts;     /* the symmetric table */
static int64_t *expected;    /* what this PE's counters must hold afterwards */

static void fail(const char *what, int rc)
{
    fprintf(stderr, "PE %d: %s: %s\n", me, what, shmemx_queue_strerror(rc));
    shmem_global_exit(2);
}

static void run_atomics(void)
{
    for (int64_t i = 0; i < l_num_ups; i++)
        shmem_int64_atomic_add(&lcounts[dest_off[i]], 1, dest_pe[i]);
    shmem_quiet();
}

static void run_commq(void)
{
    shmem_queue_config_t cfg = {0};
    cfg.qtype = SHMEM_QUEUE_COMM;
    cfg.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    cfg.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT; /* aggregate until full or flushed */
    cfg.op_type = SHMEM_OP_ATOMIC_ADD;
    cfg.pe_type = SHMEM_PE_ALL;
    shmem_queue_t q;
    int rc = shmem_queue_comm_create(&q, &cfg);
    if (rc) fail("shmem_queue_comm_create", rc);
    const int64_t one = 1; /* push copies the operand */
    for (int64_t i = 0; i < l_num_ups; i++) {
        /* FULL queues nothing: progress frees room, then push the same update again */
        while ((rc = shmem_int64_queue_comm_push(q, &lcounts[dest_off[i]], &one, 1, dest_pe[i],
                                                 SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL) {
            int p = shmem_queue_progress(q);
            if (p < 0) fail("shmem_queue_progress", p);
        }
        if (rc) fail("shmem_int64_queue_comm_push", rc);
    }
    if ((rc = shmem_queue_local_flush(q))) fail("shmem_queue_local_flush", rc);
    if ((rc = shmem_queue_comm_destroy(q))) fail("shmem_queue_comm_destroy", rc);
}

static void run_dataq(void)
{
    shmem_queue_config_t cfg = {0};
    cfg.qtype = SHMEM_QUEUE_DATA;
    cfg.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    cfg.data_elem_size = sizeof(int64_t);
    cfg.max_bytes = 64 * 1024; /* per peer, each way */
    cfg.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    shmem_queue_t q;
    int rc = shmem_queue_data_create(&q, &cfg, SHMEM_TEAM_WORLD);
    if (rc) fail("shmem_queue_data_create", rc);
    int64_t buf[1024];
    int64_t i = 0;
    for (;;) {
        /* push until this PE is done or some destination's room is full */
        for (; i < l_num_ups; i++) {
            rc = shmem_queue_data_push(q, &dest_off[i], 1, dest_pe[i]);
            if (rc == SHMEM_QUEUE_ERR_FULL) break;
            if (rc) fail("shmem_queue_data_push", rc);
        }
        /* collective; OVERFLOW leaves the rest outgoing for the next round */
        rc = shmem_queue_global_flush(q);
        if (rc && rc != SHMEM_QUEUE_ERR_OVERFLOW) fail("shmem_queue_global_flush", rc);
        size_t in, out;
        if ((rc = shmem_query_data_size(q, &in, &out, SHMEM_QUEUE_ANY_PE)))
            fail("shmem_query_data_size", rc);
        for (size_t left = in / sizeof(int64_t); left > 0;) {
            size_t k = left < 1024 ? left : 1024;
            if ((rc = shmem_queue_data_pop(q, buf, k, SHMEM_QUEUE_ANY_PE)))
                fail("shmem_queue_data_pop", rc);
            for (size_t j = 0; j < k; j++) lcounts[buf[j]]++;
            left -= k;
        }
        /* every PE loops until all PEs have pushed everything and nothing is outgoing */
        int done = i == l_num_ups && out == 0, all_done;
        MPI_Allreduce(&done, &all_done, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (all_done) break;
    }
    if ((rc = shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD))) fail("shmem_queue_data_destroy", rc);
}

static int check(void)
{
    int ok = 1;
    int64_t sum = 0, gsum;
    for (int64_t j = 0; j < lnum_counts; j++) {
        sum += lcounts[j];
        ok &= lcounts[j] == expected[j];
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&sum, &gsum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all_ok && gsum == (int64_t)npes * l_num_ups;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int opt;
    while ((opt = getopt(argc, argv, "n:t:")) != -1) {
        if (opt == 'n') l_num_ups = atoll(optarg);
        else if (opt == 't') lnum_counts = atoll(optarg);
        else {
            if (me == 0) fprintf(stderr, "usage: histogram [-n updates/PE] [-t counters/PE]\n");
            shmem_finalize();
            return 1;
        }
    }
    if (l_num_ups < 0 || lnum_counts < 1 || lnum_counts * npes > (1LL << 26)) {
        if (me == 0) fprintf(stderr, "histogram: bad sizes\n");
        shmem_finalize();
        return 1;
    }

    /* The update stream, and exact expected counts from plain MPI. */
    int64_t nglobal = lnum_counts * npes;
    dest_pe = malloc(l_num_ups * sizeof(int) + 1);
    dest_off = malloc(l_num_ups * sizeof(int64_t) + 1);
    int64_t *mine_by_global = calloc(nglobal, sizeof(int64_t)); /* PE-major */
    uint64_t stream = mix64(0x5eedULL ^ ((uint64_t)me << 48));
    for (int64_t i = 0; i < l_num_ups; i++) {
        int64_t g = (int64_t)(((unsigned __int128)mix64(stream + i) * (uint64_t)nglobal) >> 64);
        dest_pe[i] = (int)(g % npes);
        dest_off[i] = g / npes;
        mine_by_global[dest_pe[i] * lnum_counts + dest_off[i]]++;
    }
    expected = malloc(lnum_counts * sizeof(int64_t));
    MPI_Reduce_scatter_block(mine_by_global, expected, (int)lnum_counts, MPI_INT64_T, MPI_SUM,
                             MPI_COMM_WORLD);
    free(mine_by_global);
    lcounts = shmem_calloc(lnum_counts, sizeof(int64_t));

    static const struct {
        const char *name;
        void (*run)(void);
    } variants[] = {{"atomics", run_atomics}, {"commq", run_commq}, {"dataq", run_dataq}};
    int all_ok = 1;
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        memset(lcounts, 0, lnum_counts * sizeof(int64_t));
        shmem_barrier_all();
        double t = MPI_Wtime();
        variants[v].run();
        shmem_barrier_all(); /* every PE's updates are complete and visible */
        t = MPI_Wtime() - t;
        double tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        int ok = check();
        all_ok &= ok;
        if (me == 0)
            printf("histogram %s: %.3f Mupd/s (%.4f s) %s\n", variants[v].name,
                   tmax > 0 ? (double)npes * l_num_ups / tmax / 1e6 : 0.0, tmax,
                   ok ? "OK" : "WRONG");
    }
    shmem_free(lcounts);
    free(dest_pe);
    free(dest_off);
    free(expected);
    shmem_finalize();
    return all_ok ? 0 : 1;
}
