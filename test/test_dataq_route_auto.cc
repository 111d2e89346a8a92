// test_dataq_route_auto.cc: SHMEMQ_DATAQ_ROUTE=auto (part of test_dataq_route; auto does not
// depend on the hops a binary forces): the rule itself, and the choices it makes on this
// job with its 64 PEs lowered to 4 by a test hook, checked with the data.
#include "dataq_route_util.h"

namespace {

// The mode auto's rule gives P PEs in nodes of n.
uint32_t auto_mode(int np, int n)
{
    if (!shmemi_queue_data_route_auto(np, n))
        return SHMEMX_QUEUE_MODE_DATA_FLAT;
    return shmemi_queue_data_route_auto_hops(np, n) == 3 ? SHMEMX_QUEUE_MODE_DATA_ROUTED3
                                                         : SHMEMX_QUEUE_MODE_DATA_ROUTED;
}

// SHMEMQ_DATAQ_ROUTE=auto: routed from P = 64 (bench/simulate's LogGP crossover, docs/
// data_queues.md) with at least two PEs per node and two nodes, in three hops when the
// nodes outnumber the PEs per node; below, and so in every run of this binary (at most
// 16 PEs), direct, whether auto is said or left unset.
TEST(RoutedAuto, FollowsTheSimulatedCrossover)
{
    EXPECT_EQ(shmemi_queue_data_route_auto(16, 0), 0);
    EXPECT_EQ(shmemi_queue_data_route_auto(63, 0), 0);
    EXPECT_EQ(shmemi_queue_data_route_auto(64, 0), 1);
    EXPECT_EQ(shmemi_queue_data_route_auto(64, 64), 0); // one node
    EXPECT_EQ(shmemi_queue_data_route_auto(64, 1), 0);  // one PE per node
    EXPECT_EQ(shmemi_queue_data_route_auto(64, 2), 1);
    EXPECT_EQ(shmemi_queue_data_route_auto(64, 32), 1);
    EXPECT_EQ(shmemi_queue_data_route_auto(128, 64), 1);
    EXPECT_EQ(shmemi_queue_data_route_auto(1 << 20, 64), 1);
    // three hops once there are more nodes than PEs per node (bench/simulate: from there
    // they beat two for uniform traffic)
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(64, 2), 3);
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(64, 8), 2);
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(128, 8), 3);
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(256, 16), 2);
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(512, 16), 3);
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(4096, 64), 2);
    EXPECT_EQ(shmemi_queue_data_route_auto_hops(1 << 20, 64), 3);
    shmem_queue_config_t c = data_queue_cfg(0, 8);
    for (int said = 0; said < 2; said++) {
        if (said)
            setenv("SHMEMQ_DATAQ_ROUTE", "auto", 1);
        else
            unsetenv("SHMEMQ_DATAQ_ROUTE");
        shmem_queue_t q = nullptr;
        ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
        unsetenv("SHMEMQ_DATAQ_ROUTE");
        const int np = shmem_n_pes(), n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
        EXPECT_EQ(mode_of(q), auto_mode(np, n));
        EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    }
}

// auto's choices made on this job, with its 64 PEs lowered to 4 by the test hook: direct
// on one node or one PE per node, routed in nodes of 2 or more, in three hops when the
// nodes outnumber the PEs per node (test/scale.sh's 8 PEs as 4x2); the mode is the rule's
// on every PE, and the data exact and in order whichever it is.
struct RoutedAutoAt4 : ::testing::Test {
    void SetUp() override
    {
        setenv("SHMEMQ_DATAQ_ROUTE", "auto", 1);
        shmemi_queue_data_route_test_auto_pes = 4;
    }
    void TearDown() override
    {
        shmemi_queue_data_route_test_auto_pes = 0;
        unsetenv("SHMEMQ_DATAQ_ROUTE");
    }
};
TEST_F(RoutedAutoAt4, ChoosesAsTheRuleSaysOnThisJob)
{
    const int np = shmem_n_pes(), n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    shmem_queue_config_t c = data_queue_cfg(0, 8);
    shmem_queue_t q = nullptr;
    ASSERT_EQ(shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD), 0);
    EXPECT_EQ(mode_of(q), auto_mode(np, n));
    EXPECT_EQ(shmem_queue_data_destroy(&q, SHMEM_TEAM_WORLD), 0);
    all_to_all(SHMEM_TEAM_WORLD, 2);
}

} // namespace
