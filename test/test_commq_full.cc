// test_commq_full.cc: communication queues (docs/queues.md), their capacity: FULL at
// exactly max_elems, progress frees room and a retry succeeds, the outstanding count
// exact whether asked often or not, on both paths (SHMEMQ_COMM_PATH) and with combining
// (SHMEMQ_COMBINE). The other data-path tests: test_commq_common.h; the life cycle and
// contract: test_commq_api.cc.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <string>
#include "test_commq_common.h"

// The outstanding count has two modes (comm_queue.h): summed over the slots when the
// program asks rarely, kept by every push once it asks often. Exact in both, and across
// the switches: on after a few queries, off again at bursts nobody asked between.
TEST_P(CommQueueModes, OutstandingCountExactWhetherAskedOftenOrNot)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const int T = 8;
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(T, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ATOMIC_ADD, 1u << 20);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    int64_t one = 1;
    long pushed = 0; // every PE pushes the same sequence
    auto push = [&](long k) {
        for (long i = 0; i < k; i++, pushed++)
            ASSERT_EQ(shmem_int64_queue_comm_push(q, &ctr[pushed % T], &one, 1,
                                                 (int)((pushed + me) % n), SHMEM_OP_ATOMIC_ADD),
                      0);
    };
    auto count = [&]() {
        size_t sz = 0;
        EXPECT_EQ(shmem_query_size(q, &sz), 0);
        return (long)sz;
    };
    push(100); // asked rarely: summed
    EXPECT_EQ(count(), 100);
    for (int i = 1; i <= 10; i++) { // asked after every push: counting from the 4th on
        push(1);
        EXPECT_EQ(count(), 100 + i);
        EXPECT_EQ(shmem_queue_progress(q), 100 + i); // nothing issued yet: all outstanding
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    // asked after every push across bursts: never more than pushed since the flush
    // (issued operations may complete, so not exact), nothing left after the flush
    for (long i = 1; i <= 3 * 8192; i++) {
        push(1);
        ASSERT_LE(count(), i);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    push(50);
    EXPECT_EQ(count(), 50);
    // many bursts with no query between them (counting stops), then asked again
    push(200000);
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    push(7);
    EXPECT_EQ(count(), 7);
    for (int i = 1; i <= 6; i++) {
        push(1);
        EXPECT_EQ(count(), 7 + i);
    }
    ASSERT_EQ(shmem_queue_local_flush(q), 0);
    EXPECT_EQ(count(), 0);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // update j went to PE (j + r) % n for PE r, counter j % T: count ours
    for (int t = 0; t < T; t++) {
        long want = 0;
        for (int r = 0; r < n; r++)
            for (long j = t; j < pushed; j += T)
                want += (int)((j + r) % n) == me;
        EXPECT_EQ(ctr[t], want) << "counter " << t;
    }
    shmem_barrier_all();
    shmem_free(ctr);
}

// Capacity is granted to open chunks in parts (docs/queues.md, "Capacity by grants"):
// pushes spread over every PE and three operations must still reach exactly max_elems
// before FULL, and the counts must leave unused grants out at every step.
TEST_P(CommQueueModes, FullAtExactlyMaxElemsAcrossTargets)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    const uint64_t M = 37; // odd, below one grant, not a multiple of n
    int64_t *ctr = static_cast<int64_t *>(shmem_calloc(3, sizeof(int64_t)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY, M);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    const shmem_op_type_t ops[3] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_INC, SHMEM_OP_ATOMIC_OR};
    int64_t one = 1;
    long ok = 0, per_op[3] = {0, 0, 0};
    for (int round = 0; round < 2; round++) {
        int rc;
        for (uint64_t i = 0;; i++) {
            int k = (int)(i % 3), pe = (int)((i / 3 + (uint64_t)me) % (uint64_t)n);
            int64_t *dest = k == 1 ? &ctr[0] : &ctr[k];
            rc = shmem_int64_queue_comm_push(q, dest, &one, 1, pe, ops[k]);
            if (rc != 0)
                break;
            ok++;
            per_op[k]++;
            size_t sz;
            ASSERT_EQ(shmem_query_size(q, &sz), 0);
            ASSERT_EQ(sz, (size_t)(i + 1));
        }
        EXPECT_EQ(rc, SHMEM_QUEUE_ERR_FULL);
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q, &a), 0);
        EXPECT_EQ(a.outstanding_elems, M);
        EXPECT_EQ(a.available_elems, 0u);
        int p = shmem_queue_progress(q); // full: must make room
        ASSERT_GE(p, 0);
        EXPECT_LT((uint64_t)p, M);
        ASSERT_EQ(shmem_queue_local_flush(q), 0);
        ASSERT_EQ(shmem_query_attr(q, &a), 0);
        EXPECT_EQ(a.outstanding_elems, 0u);
        EXPECT_EQ(a.available_elems, M);
    }
    EXPECT_EQ(ok, (long)(2 * M));
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0);
    shmem_barrier_all();
    // every PE pushed the same sequence, rotated by its rank: sum the adds over PEs
    int64_t adds = 0, ors = 0;
    for (int r = 0; r < n; r++) {
        long cnt = 0;
        for (int round = 0; round < 2; round++)
            for (uint64_t i = 0; i < M; i++)
                if ((int)((i / 3 + (uint64_t)r) % (uint64_t)n) == me && i % 3 != 2)
                    cnt++;
        adds += cnt;
        for (int round = 0; round < 2; round++)
            for (uint64_t i = 0; i < M; i++)
                if ((int)((i / 3 + (uint64_t)r) % (uint64_t)n) == me && i % 3 == 2)
                    ors = 1;
    }
    EXPECT_EQ(ctr[0], adds);
    EXPECT_EQ(ctr[2], ors);
    EXPECT_EQ(per_op[0] + per_op[1] + per_op[2], ok);
    shmem_barrier_all();
    shmem_free(ctr);
}

// Full queue: FULL queues nothing, progress frees room, retry succeeds.
TEST_P(CommQueueModes, FullThenProgressThenRetry)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int pe = (me + 1) % n;
    const int M = 8, TOTAL = 200;
    long *ctr = static_cast<long *>(shmem_calloc(1, sizeof(long)));
    long *arr = static_cast<long *>(shmem_calloc(TOTAL, sizeof(long)));
    shmem_barrier_all();
    shmem_queue_t q;
    shmem_queue_config_t c = cfg(SHMEM_OP_ANY, M);
    ASSERT_EQ(shmem_queue_comm_create(&q, &c), 0);
    int fulls = 0;
    for (int i = 0; i < TOTAL;) {
        long v = i; // PUT of a reused stack variable
        int rc = shmem_long_queue_comm_push(q, &arr[i], &v, 1, pe, SHMEM_OP_PUT);
        if (rc == SHMEM_QUEUE_ERR_FULL) {
            fulls++;
            size_t sz;
            ASSERT_EQ(shmem_query_size(q, &sz), 0);
            ASSERT_EQ(sz, (size_t)M);
            shmem_queue_attr_t a;
            ASSERT_EQ(shmem_query_attr(q, &a), 0);
            ASSERT_EQ(a.available_elems, 0u);
            int p = shmem_queue_progress(q);
            ASSERT_GE(p, 0);
            ASSERT_LT(p, M);
            continue;
        }
        ASSERT_EQ(rc, 0);
        rc = shmem_long_queue_comm_push(q, ctr, nullptr, 1, pe, SHMEM_OP_ATOMIC_INC);
        while (rc == SHMEM_QUEUE_ERR_FULL) {
            fulls++; // PUTs to node peers are copies made at once: only the INCs fill up
            ASSERT_GE(shmem_queue_progress(q), 0);
            rc = shmem_long_queue_comm_push(q, ctr, nullptr, 1, pe, SHMEM_OP_ATOMIC_INC);
        }
        ASSERT_EQ(rc, 0);
        i++;
    }
    if (pe != me || std::string(kModes[GetParam()].path) == "rma") {
        EXPECT_GT(fulls, 0);
    }
    shmemx_queue_stats_t st;
    ASSERT_EQ(shmemx_queue_stats(q, &st), 0);
    EXPECT_GE(st.full_returns, (uint64_t)fulls);
    ASSERT_EQ(shmem_queue_comm_destroy(q), 0); // destroy completes outstanding ops
    shmem_barrier_all();
    EXPECT_EQ(*ctr, TOTAL);
    for (int i = 0; i < TOTAL; i++)
        ASSERT_EQ(arr[i], i);
    shmem_barrier_all();
    shmem_free(ctr);
    shmem_free(arr);
}

INSTANTIATE_TEST_SUITE_P(Paths, CommQueueModes, ::testing::Values(0, 1, 2, 3));
