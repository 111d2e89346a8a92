// test_lock.cc: shmem_set_lock / shmem_test_lock / shmem_clear_lock under contention
// from every PE: a non-atomic read-modify-write of a counter on PE 0 inside the lock
// must never lose an update.
#include <gtest/gtest.h>
#include <shmem.h>
#include "test_util.h"

static long static_lock;
static long static_counter;

static void contend(long *lock, long *counter, int iters)
{
    for (int i = 0; i < iters; i++) {
        shmem_set_lock(lock);
        long v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(lock);
    }
}

TEST(Lock, HeapLockContention)
{
    long *lock = (long *)shmem_calloc(1, sizeof(long));
    long *counter = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(lock, nullptr);
    ASSERT_NE(counter, nullptr);
    shmem_barrier_all();
    const int iters = 12;
    contend(lock, counter, iters);
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_g(counter, 0), (long)iters * shmem_n_pes());
    // the lock word is idle again on every PE
    EXPECT_EQ(*lock, 0);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
}

TEST(Lock, StaticLockContention)
{
    static_lock = 0;
    static_counter = 0;
    shmem_barrier_all();
    const int iters = 12;
    contend(&static_lock, &static_counter, iters);
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_g(&static_counter, 0), (long)iters * shmem_n_pes());
    EXPECT_EQ(static_lock, 0);
    shmem_barrier_all();
}

TEST(Lock, TestLock)
{
    long *lock = (long *)shmem_calloc(1, sizeof(long));
    long *counter = (long *)shmem_calloc(1, sizeof(long));
    ASSERT_NE(lock, nullptr);
    shmem_barrier_all();
    int me = shmem_my_pe(), last = shmem_n_pes() - 1;
    if (me == last) {
        EXPECT_EQ(shmem_test_lock(lock), 0);
    }
    shmem_barrier_all();
    EXPECT_EQ(shmem_test_lock(lock), 1); // held by the last PE (not reentrant for it)
    shmem_barrier_all();
    if (me == last)
        shmem_clear_lock(lock);
    shmem_barrier_all();
    const int iters = 6;
    for (int i = 0; i < iters; i++) {
        while (shmem_test_lock(lock) != 0)
            ;
        long v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(lock);
    }
    // mixed with set_lock
    contend(lock, counter, 4);
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_g(counter, 0), (long)(iters + 4) * shmem_n_pes());
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(lock);
}

TEST(Lock, TwoLocksNested)
{
    long *locks = (long *)shmem_calloc(2, sizeof(long));
    long *counters = (long *)shmem_calloc(2, sizeof(long));
    ASSERT_NE(locks, nullptr);
    shmem_barrier_all();
    for (int i = 0; i < 5; i++) {
        shmem_set_lock(&locks[0]);
        shmem_set_lock(&locks[1]);
        counters[0] = 0; // local scribble is fine: the counters live on PE 0
        long a = shmem_long_g(&counters[1], 0);
        shmem_long_p(&counters[1], a + 2, 0);
        shmem_clear_lock(&locks[1]);
        shmem_clear_lock(&locks[0]);
    }
    shmem_barrier_all();
    EXPECT_EQ(shmem_long_g(&counters[1], 0), 10L * shmem_n_pes());
    shmem_barrier_all();
    shmem_free(counters);
    shmem_free(locks);
}

TEST(Lock, InvalidArguments)
{
    long not_symmetric = 0;
    shmem_set_lock(nullptr);
    shmem_clear_lock(nullptr);
    EXPECT_EQ(shmem_test_lock(nullptr), 1);
    EXPECT_EQ(shmem_test_lock(&not_symmetric), 1);
    EXPECT_EQ(not_symmetric, 0);
}
