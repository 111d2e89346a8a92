// test_robust.cc: the runtime where the program owns MPI, and under threads (issue 13).
//
// Built with mpi_main.cc's SHMEMQ_TEST_PROGRAM_INITS_MPI: main calls
// MPI_Init_thread(MPI_THREAD_MULTIPLE) itself and only then shmem_init_thread, so shmemq
// cannot pick Open MPI's components (the 1-PE data-segment window used to fail there),
// and it finalizes MPI after shmem_finalize.
// Every test runs at 1, 2 and 4 PEs and with every PE its own node (run-mpi.sh).
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <pshmem.h> // also checks that the profiling header compiles as C++
#include <shmemx.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

// Nothing may hang: a test that overruns its deadline ends the process (SIGALRM's
// default action), and mpiexec then ends the job.
struct Deadline {
    explicit Deadline(unsigned seconds) { alarm(seconds); }
    ~Deadline() { alarm(0); }
};

// The level shmem_init_thread granted (mpi_main.cc asks for SHMEM_THREAD_MULTIPLE).
int provided_level()
{
    int level = -1;
    shmem_query_thread(&level);
    return level;
}

// ---- MPI initialised by the program ----

long static_words[4];   // data segment: the window that failed under Open MPI
long static_counter;

TEST(RobustInterop, DataSegmentWorksWhenTheProgramInitialisedMpi)
{
    Deadline d(120);
    int me = shmem_my_pe(), n = shmem_n_pes();
    int mpi_rank = -1, mpi_size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    EXPECT_EQ(mpi_rank, me);
    EXPECT_EQ(mpi_size, n);
    static_counter = 0;
    for (auto &w : static_words)
        w = -1;
    shmem_barrier_all();

    // PE 0 waits in an MPI call of the program's own while the others put into its data
    // segment and add to its counter: the target does not call the library.
    int right = (me + 1) % n;
    long mine = 100 + me;
    if (me != 0 || n == 1) {
        shmem_long_put(&static_words[0], &mine, 1, right);
        shmem_long_atomic_add(&static_counter, me + 1, 0);
        shmem_long_p(&static_words[1], mine, me);
        EXPECT_EQ(shmem_long_g(&static_words[1], me), mine);
        EXPECT_EQ(shmem_long_atomic_fetch(&static_counter, 0) >= me + 1, true);
        shmem_quiet();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && n > 1) { // now PE 0's own put, after the others are done
        shmem_long_put(&static_words[0], &mine, 1, right);
        shmem_quiet();
    }
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    EXPECT_EQ(static_words[0], 100 + left);
    if (me == 0) {
        long want = 0;
        for (int pe = (n == 1 ? 0 : 1); pe < n; pe++)
            want += pe + 1;
        EXPECT_EQ(static_counter, want);
    }
    // the program's MPI still works beside the library's
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(sum, n);
    shmem_barrier_all();
}

// A program that owns MPI asks for the active-message queue path, then flushes queued
// adds and puts to PEs that wait for it inside MPI_Barrier, a call of the program's own.
// AM batches need the target's shmemq progress, which a PE inside MPI_Barrier never runs:
// so the library takes the RMA path instead (comm_queue.c env_path), whose bursts MPI
// completes there. Off the node (run-mpi.sh's SHMEMQ_NODE_PES=1 runs) this deadlocked
// before; on one node the origin applies every burst either way.
TEST(RobustInterop, QueueAskedForAmStillCompletesIntoAnMpiWait)
{
    Deadline d(120);
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int K = 512, OPS = 100000;
    long *ctr = static_cast<long *>(shmem_calloc(K, sizeof(long)));
    long *vals = static_cast<long *>(shmem_calloc(K, sizeof(long)));
    ASSERT_NE(ctr, nullptr);
    ASSERT_NE(vals, nullptr);
    shmem_barrier_all();
    setenv("SHMEMQ_COMM_PATH", "am", 1);
    if (me == 0) {
        shmem_queue_t q;
        shmem_queue_config_t c = {};
        c.qtype = SHMEM_QUEUE_COMM;
        c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
        c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
        c.op_type = SHMEM_OP_ANY;
        c.pe_type = SHMEM_PE_ALL;
        ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
        const long one = 1;
        for (int i = 0; i < OPS; i++) {
            int pe = n > 1 ? 1 + i % (n - 1) : 0;
            int rc;
            while ((rc = shmem_long_queue_comm_push(q, &ctr[i % K], &one, 1, pe,
                                                    SHMEM_OP_ATOMIC_ADD)) == SHMEM_QUEUE_ERR_FULL)
                ASSERT_GE(shmem_queue_progress(q), 0);
            ASSERT_EQ(rc, 0);
        }
        for (int pe = 0; pe < n; pe++)
            for (int i = 0; i < K; i++) {
                long v = 1000L * pe + i;
                ASSERT_EQ(shmem_long_queue_comm_push(q, &vals[i], &v, 1, pe, SHMEM_OP_PUT), 0);
            }
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    }
    unsetenv("SHMEMQ_COMM_PATH");
    MPI_Barrier(MPI_COMM_WORLD); // the others have waited in here all along
    long want_total = me == 0 && n > 1 ? 0 : (n == 1 ? OPS : 0);
    if (me > 0) { // adds went round-robin over PEs 1..n-1
        for (int i = 0; i < OPS; i++)
            want_total += 1 + i % (n - 1) == me;
    }
    long total = 0;
    for (int i = 0; i < K; i++) {
        total += ctr[i];
        EXPECT_EQ(vals[i], 1000L * me + i) << i;
    }
    EXPECT_EQ(total, want_total);
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(vals);
}

// ---- one OpenSHMEM lock shared by the threads of every PE ----

long shared_lock;     // the lock word (symmetric, 0 on every PE)
long locked_total;    // on PE 0: incremented non-atomically under the lock
long holders;         // on PE 0: PEs x threads inside the critical section right now

constexpr int kThreads = 4;
constexpr int kRounds = 25;

// get + put (not an atomic add): any two holders at once lose an increment, and
// `holders` (fetch-add on entry) catches them in the act.
void locked_rounds(std::atomic<int> &overlaps, int rounds, bool use_test_lock)
{
    for (int i = 0; i < rounds; i++) {
        if (use_test_lock && (i % 2) == 1) {
            while (shmem_test_lock(&shared_lock) != 0)
                sched_yield();
        } else {
            shmem_set_lock(&shared_lock);
        }
        if (shmem_long_atomic_fetch_add(&holders, 1, 0) != 0)
            overlaps++;
        long v = shmem_long_g(&locked_total, 0);
        shmem_long_p(&locked_total, v + 1, 0);
        shmem_long_atomic_add(&holders, -1, 0);
        shmem_clear_lock(&shared_lock);
    }
}

void run_threads(std::atomic<int> &overlaps, bool use_test_lock)
{
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; t++)
        ts.emplace_back([&overlaps, t, use_test_lock] {
            locked_rounds(overlaps, kRounds, use_test_lock && t % 2 == 0);
        });
    for (auto &t : ts)
        t.join();
}

TEST(RobustLock, ThreadsOfEveryPeShareOneLock)
{
    if (provided_level() < SHMEM_THREAD_MULTIPLE)
        GTEST_SKIP() << "needs SHMEM_THREAD_MULTIPLE";
    Deadline d(240);
    int me = shmem_my_pe(), n = shmem_n_pes();
    shared_lock = 0;
    locked_total = 0;
    holders = 0;
    shmem_barrier_all();
    std::atomic<int> overlaps{0};

    // Phase 1: PE 0 holds the lock's tail, the counter and `holders`, and waits in an
    // MPI call of the program's own while the other PEs' threads lock through it.
    if (me != 0 || n == 1)
        run_threads(overlaps, true);
    MPI_Barrier(MPI_COMM_WORLD);
    // Phase 2: every PE's threads, PE 0's included.
    run_threads(overlaps, false);
    shmem_barrier_all();

    EXPECT_EQ(overlaps.load(), 0);
    if (me == 0) {
        long phase1 = (n == 1 ? 1 : n - 1) * kThreads * kRounds;
        long phase2 = (long)n * kThreads * kRounds;
        EXPECT_EQ(locked_total, phase1 + phase2);
        EXPECT_EQ(holders, 0);
    }
    // PE 0 alone: test_lock succeeds while nobody holds the lock, and another thread of
    // the same PE is then refused (the holder is this PE, not that thread)
    if (me == 0) {
        EXPECT_EQ(shmem_test_lock(&shared_lock), 0);
        std::thread other([] { EXPECT_EQ(shmem_test_lock(&shared_lock), 1); });
        other.join();
        shmem_clear_lock(&shared_lock);
    }
    shmem_barrier_all();
}

// ---- symmetric heap exhaustion ----

TEST(RobustHeap, ExhaustionReturnsNullAndTheProgramGoesOn)
{
    Deadline d(120);
    int me = shmem_my_pe(), n = shmem_n_pes();
    // far more than any heap: NULL on every PE, nothing else changes
    EXPECT_EQ(shmem_malloc(SIZE_MAX / 2), nullptr);
    EXPECT_EQ(shmem_calloc(SIZE_MAX / 4, 16), nullptr); // count * size overflows
    EXPECT_EQ(shmem_align(64, SIZE_MAX - 4096), nullptr);

    // fill the heap with 1 MiB blocks until it is exhausted
    const size_t block = (size_t)1 << 20;
    std::vector<void *> blocks;
    void *p = nullptr;
    while (blocks.size() < 65536 && (p = shmem_malloc(block)) != nullptr)
        blocks.push_back(p);
    EXPECT_EQ(p, nullptr) << "the heap never ran out";
    ASSERT_FALSE(blocks.empty());
    // a realloc that cannot grow fails and leaves the block as it was
    long *first = static_cast<long *>(blocks[0]);
    first[0] = 7;
    shmem_barrier_all();
    EXPECT_EQ(shmem_realloc(first, block * 1024), nullptr);
    EXPECT_EQ(first[0], 7);

    for (void *b : blocks)
        shmem_free(b);
    // everything is back: the largest block is allocatable again, and it works
    size_t big = block * blocks.size() / 2;
    long *q = static_cast<long *>(shmem_malloc(big));
    ASSERT_NE(q, nullptr);
    size_t last = big / sizeof(long) - 1;
    q[last] = -1;
    shmem_barrier_all();
    long v = me;
    shmem_long_put(&q[last], &v, 1, (me + 1) % n);
    shmem_barrier_all();
    EXPECT_EQ(q[last], (me + n - 1) % n);
    shmem_free(q);
}

} // namespace
