// test_ctx.cc: contexts (create/destroy, per-context quiet, pool exhaustion, team
// contexts with team-relative PEs), shmem_ptr / shmem_team_ptr, shmem_pe_quiet.
#include <gtest/gtest.h>
#include <shmem.h>
#include <cstdint>
#include <vector>
#include "test_util.h"

static long static_slots[16];

TEST(Ctx, CreatePutQuietDestroy)
{
    const long opts[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED,
                         SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    const int nctx = 4;
    shmem_ctx_t ctx[nctx];
    for (int i = 0; i < nctx; i++) {
        ASSERT_EQ(shmem_ctx_create(opts[i], &ctx[i]), 0);
        ASSERT_NE(ctx[i], SHMEM_CTX_INVALID);
        shmem_team_t team = SHMEM_TEAM_INVALID;
        EXPECT_EQ(shmem_ctx_get_team(ctx[i], &team), 0);
        EXPECT_EQ(team, SHMEM_TEAM_WORLD);
    }
    long *heap = (long *)shmem_calloc(64, sizeof(long));
    ASSERT_NE(heap, nullptr);
    shmem_barrier_all();
    int me = shmem_my_pe(), right = right_neighbor();
    for (int i = 0; i < nctx; i++) {
        std::vector<long> src(16);
        for (int k = 0; k < 16; k++)
            src[(size_t)k] = me * 1000 + i * 100 + k;
        shmem_ctx_long_put_nbi(ctx[i], &heap[i * 16], src.data(), 16, right);
        shmem_ctx_long_p(ctx[i], &static_slots[i], me * 10 + i, right);
    }
    for (int i = 0; i < nctx; i++)
        shmem_ctx_quiet(ctx[i]);
    shmem_barrier_all();
    int left = left_neighbor();
    for (int i = 0; i < nctx; i++) {
        for (int k = 0; k < 16; k++)
            EXPECT_EQ(heap[i * 16 + k], left * 1000 + i * 100 + k);
        EXPECT_EQ(static_slots[i], left * 10 + i);
        // gets through the context
        EXPECT_EQ(shmem_ctx_long_g(ctx[i], &heap[i * 16 + 3], right), me * 1000 + i * 100 + 3);
    }
    shmem_barrier_all();
    for (int i = 0; i < nctx; i++)
        shmem_ctx_destroy(ctx[i]);
    shmem_free(heap);
}

// More contexts than the window pool holds: the extra ones share the default windows.
TEST(Ctx, PoolExhaustionFallsBackToDefaultWindows)
{
    const int nctx = 10;
    std::vector<shmem_ctx_t> ctx((size_t)nctx);
    for (int i = 0; i < nctx; i++)
        ASSERT_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx[(size_t)i]), 0);
    int *slots = (int *)shmem_calloc((size_t)nctx, sizeof(int));
    ASSERT_NE(slots, nullptr);
    shmem_barrier_all();
    for (int i = 0; i < nctx; i++) {
        shmem_ctx_int_p(ctx[(size_t)i], &slots[i], 1 + i + shmem_my_pe(), right_neighbor());
        shmem_ctx_quiet(ctx[(size_t)i]);
    }
    shmem_barrier_all();
    for (int i = 0; i < nctx; i++)
        EXPECT_EQ(slots[i], 1 + i + left_neighbor());
    shmem_barrier_all();
    // destroy in a different order; a new context reuses a freed pool slot
    for (int i = nctx - 1; i >= 0; i -= 2)
        shmem_ctx_destroy(ctx[(size_t)i]);
    shmem_ctx_t again;
    ASSERT_EQ(shmem_ctx_create(0, &again), 0);
    shmem_ctx_int_p(again, &slots[0], 77, right_neighbor());
    shmem_ctx_quiet(again);
    shmem_barrier_all();
    EXPECT_EQ(slots[0], 77);
    shmem_barrier_all();
    shmem_ctx_destroy(again);
    for (int i = nctx - 2; i >= 0; i -= 2)
        shmem_ctx_destroy(ctx[(size_t)i]);
    shmem_free(slots);
}

// A context made from SHMEM_TEAM_SHARED numbers PEs within the node.
TEST(Ctx, TeamContextUsesTeamRelativePes)
{
    // the team's own numbering (it follows SHMEMQ_NODE_PES, which MPI's node does not)
    int nme = shmem_team_my_pe(SHMEM_TEAM_SHARED), nn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    std::vector<int> world_of((size_t)nn);
    for (int i = 0; i < nn; i++)
        world_of[(size_t)i] = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
    int me = shmem_my_pe();

    shmem_ctx_t ctx;
    ASSERT_EQ(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &ctx), 0);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_ctx_get_team(ctx, &team), 0);
    EXPECT_EQ(team, SHMEM_TEAM_SHARED);
    long *slot = (long *)shmem_calloc(2, sizeof(long));
    ASSERT_NE(slot, nullptr);
    shmem_barrier_all();
    int tright = (nme + 1) % nn, tleft = (nme + nn - 1) % nn;
    shmem_ctx_long_p(ctx, &slot[0], 500 + me, tright); // team PE number
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    EXPECT_EQ(slot[0], 500 + world_of[(size_t)tleft]);
    EXPECT_EQ(shmem_ctx_long_g(ctx, &slot[0], tright), 500 + me);
    // a PE number outside the team is refused, not sent somewhere else
    shmem_ctx_long_p(ctx, &slot[1], 9, nn);
    shmem_ctx_pe_quiet(ctx, &tright, 1);
    shmem_barrier_all();
    EXPECT_EQ(slot[1], 0);
    shmem_ctx_destroy(ctx);
    shmem_free(slot);
}

TEST(Ctx, InvalidArguments)
{
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    EXPECT_NE(shmem_ctx_create(0x100, &ctx), 0);
    EXPECT_EQ(ctx, SHMEM_CTX_INVALID);
    EXPECT_NE(shmem_ctx_create(0, nullptr), 0);
    ctx = SHMEM_CTX_DEFAULT;
    EXPECT_NE(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx), 0);
    EXPECT_EQ(ctx, SHMEM_CTX_INVALID);
    shmem_team_t team = SHMEM_TEAM_WORLD;
    EXPECT_NE(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team), 0);
    EXPECT_EQ(team, SHMEM_TEAM_INVALID);
    EXPECT_NE(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, nullptr), 0);
    EXPECT_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team), 0);
    EXPECT_EQ(team, SHMEM_TEAM_WORLD);
    shmem_ctx_destroy(SHMEM_CTX_INVALID); // no operation
    shmem_ctx_destroy(SHMEM_CTX_DEFAULT); // reported, not destroyed
    shmem_long_p(&static_slots[15], 1, shmem_my_pe()); // default context still works
    EXPECT_EQ(static_slots[15], 1);
    static_slots[15] = 0;
}

TEST(PeQuiet, CompletesPutsToListedPes)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    long *dst = (long *)shmem_calloc((size_t)npes, sizeof(long));
    ASSERT_NE(dst, nullptr);
    shmem_barrier_all();
    std::vector<int> pes;
    const long v = 100L + me; // stays alive until pe_quiet completes the puts
    for (int pe = 0; pe < npes; pe++) {
        shmem_long_put_nbi(&dst[me], &v, 1, pe);
        pes.push_back(pe);
    }
    shmem_pe_quiet(pes.data(), pes.size());
    shmem_pe_quiet(nullptr, 0);
    shmem_sync_all(); // no quiet in sync_all: pe_quiet did the completion
    for (int pe = 0; pe < npes; pe++)
        EXPECT_EQ(dst[pe], 100 + pe);
    shmem_barrier_all();
    shmem_free(dst);
}

TEST(Ptr, OwnPeAndConsistentRemoteMappings)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    long *heap = (long *)shmem_calloc((size_t)npes, sizeof(long));
    ASSERT_NE(heap, nullptr);
    EXPECT_EQ(shmem_ptr(heap, me), heap);
    EXPECT_EQ(shmem_ptr(&static_slots[2], me), &static_slots[2]);
    long local = 0;
    EXPECT_EQ(shmem_ptr(&local, me), nullptr);
    EXPECT_EQ(shmem_ptr(heap, npes), nullptr);
    EXPECT_EQ(shmem_ptr(heap, -1), nullptr);
    EXPECT_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, me), heap);
    EXPECT_EQ(shmem_team_ptr(SHMEM_TEAM_INVALID, heap, me), nullptr);
    shmem_barrier_all();
    // a non-NULL pointer to another PE must alias that PE's object
    int mapped = 0;
    for (int pe = 0; pe < npes; pe++) {
        long *p = (long *)shmem_ptr(&heap[me], pe);
        if (pe != me && p != nullptr) {
            __atomic_store_n(p, 1000 + me, __ATOMIC_RELEASE);
            mapped++;
        } else {
            shmem_long_p(&heap[me], 1000 + me, pe);
        }
        if (pe != me) { // node peers' heaps and globals are mapped; nobody else's
            bool on_node = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
            EXPECT_EQ(shmem_ptr(&static_slots[0], pe) != nullptr, on_node) << "PE " << pe;
            EXPECT_EQ(p != nullptr, on_node) << "PE " << pe;
        }
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        EXPECT_EQ(__atomic_load_n(&heap[pe], __ATOMIC_ACQUIRE), 1000 + pe);
    if (me == 0)
        std::printf("[   INFO   ] shmem_ptr mapped %d of %d remote PEs\n", mapped, npes - 1);
    shmem_barrier_all();
    shmem_free(heap);
}
