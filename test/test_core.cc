// test_core.cc: setup and query, the symmetric heap, contiguous RMA on heap and static
// targets, fence/quiet/barriers.
#include <gtest/gtest.h>
#include <shmem.h>
#include <mpi.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "test_util.h"

extern "C" {
struct odd_layout {
    char pad;
    int64_t at1;
    char pad2[7];
    int64_t at16;
    int64_t at24;
    char bytes[37];
} __attribute__((packed, aligned(16)));
struct odd_layout *static_odd_ptr(void);
int64_t *static_data_ptr(void);
long *static_counter_ptr(void);
}

static int global_int_target;
static double global_double_array[17];

TEST(Setup, QueryRoutines)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int mpi_rank, mpi_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    EXPECT_EQ(me, mpi_rank);
    EXPECT_EQ(n, mpi_size);
    EXPECT_EQ(_my_pe(), me);
    EXPECT_EQ(_num_pes(), n);
    int provided = -1;
    shmem_query_thread(&provided);
    EXPECT_GE(provided, SHMEM_THREAD_SINGLE);
    EXPECT_LE(provided, SHMEM_THREAD_MULTIPLE);
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    EXPECT_EQ(major, SHMEM_MAJOR_VERSION);
    EXPECT_EQ(minor, SHMEM_MINOR_VERSION);
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    EXPECT_STREQ(name, SHMEM_VENDOR_STRING);
    // init again is harmless
    shmem_init();
    EXPECT_EQ(shmem_my_pe(), me);
}

// The test main asks for SHMEM_THREAD_MULTIPLE; both MPIs here give it, and nothing in
// shmem_init may lower MPI's own level afterwards (Open MPI 4.1 took MPI_T_init_thread's
// level as the library's).
TEST(Setup, ThreadLevelKept)
{
    int provided = -1, mpi = -1;
    shmem_query_thread(&provided);
    MPI_Query_thread(&mpi);
    EXPECT_EQ(provided, SHMEM_THREAD_MULTIPLE);
    EXPECT_EQ(mpi, MPI_THREAD_MULTIPLE);
}

TEST(Setup, Accessible)
{
    int n = shmem_n_pes();
    for (int pe = 0; pe < n; pe++)
        EXPECT_TRUE(shmem_pe_accessible(pe));
    EXPECT_FALSE(shmem_pe_accessible(-1));
    EXPECT_FALSE(shmem_pe_accessible(n));
    int *heap = (int *)shmem_malloc(sizeof(int));
    ASSERT_NE(heap, nullptr);
    int local_var = 0;
    EXPECT_TRUE(shmem_addr_accessible(heap, 0));
    EXPECT_TRUE(shmem_addr_accessible(&global_int_target, n - 1));
    EXPECT_FALSE(shmem_addr_accessible(&local_var, 0));
    EXPECT_FALSE(shmem_addr_accessible(heap, n));
    std::vector<int> v(4);
    EXPECT_FALSE(shmem_addr_accessible(v.data(), 0));
    shmem_free(heap);
}

// shmem_init sets MPICH's MPIR_CVAR_SHM_SYMHEAP_RETRY to 0 for the heap window only
// (src/mpi_rma/mpit_cvar.c): afterwards the user's MPI must see its own value again.
// MPIs without the variable must not know the name (nothing was set there).
TEST(Setup, MpiControlVariableRestoredAfterInit)
{
    int provided, idx;
    ASSERT_EQ(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    int rc = MPI_T_cvar_get_index("MPIR_CVAR_SHM_SYMHEAP_RETRY", &idx);
#ifdef MPICH_VERSION
    ASSERT_EQ(rc, MPI_SUCCESS);
    MPI_T_cvar_handle h;
    int count = 0;
    ASSERT_EQ(MPI_T_cvar_handle_alloc(idx, nullptr, &h, &count), MPI_SUCCESS);
    ASSERT_EQ(count, 1);
    int value = -1;
    ASSERT_EQ(MPI_T_cvar_read(h, &value), MPI_SUCCESS);
    const char *env = getenv("MPIR_CVAR_SHM_SYMHEAP_RETRY");
    EXPECT_EQ(value, env ? atoi(env) : 100); // MPICH's default
    MPI_T_cvar_handle_free(&h);
#else
    EXPECT_NE(rc, MPI_SUCCESS);
#endif
    MPI_T_finalize();
}

TEST(Heap, SameOffsetsOnEveryPe)
{
    void *a = shmem_malloc(100);
    void *b = shmem_malloc(3000);
    void *c = shmem_align(4096, 10);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ((uintptr_t)c % 4096, 0u);
    EXPECT_EQ((uintptr_t)a % 16, 0u);
    // Offsets from the first allocation must agree on every PE.
    long offs[2] = {(long)((char *)b - (char *)a), (long)((char *)c - (char *)a)};
    long lo[2], hi[2];
    MPI_Allreduce(offs, lo, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(offs, hi, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo[0], hi[0]);
    EXPECT_EQ(lo[1], hi[1]);
    shmem_free(b);
    void *d = shmem_malloc(64); // reuses b's space deterministically
    long off_d = (long)((char *)d - (char *)a), lo_d, hi_d;
    MPI_Allreduce(&off_d, &lo_d, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&off_d, &hi_d, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo_d, hi_d);
    shmem_free(a);
    shmem_free(c);
    shmem_free(d);
}

TEST(Heap, CallocZeroesAndZeroSizeIsNull)
{
    EXPECT_EQ(shmem_malloc(0), nullptr);
    EXPECT_EQ(shmem_calloc(0, 8), nullptr);
    long *p = (long *)shmem_calloc(1000, sizeof(long));
    ASSERT_NE(p, nullptr);
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ(p[i], 0);
    shmem_free(p);
    EXPECT_EQ(shmem_calloc(SIZE_MAX / 2, 4), nullptr); // overflow
    shmem_free(nullptr);                               // a no-op, still collective
}

// Alignments above the page size are absolute addresses too (up to 8 MiB), and the
// offset is the same on every PE.
TEST(Heap, AlignAbovePageSize)
{
    for (size_t a = 8192; a <= ((size_t)8 << 20); a <<= 1) {
        SCOPED_TRACE(a);
        char *p = (char *)shmem_align(a, 100);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ((uintptr_t)p % a, 0u);
        p[0] = (char)shmem_my_pe();
        shmem_barrier_all();
        EXPECT_EQ(shmem_char_g(p, (shmem_my_pe() + 1) % shmem_n_pes()),
                  (char)((shmem_my_pe() + 1) % shmem_n_pes()));
        shmem_barrier_all();
        shmem_free(p);
    }
    EXPECT_EQ(shmem_align((size_t)16 << 20, 64), nullptr); // above the supported alignment
}

TEST(Heap, ExhaustionReturnsNullAndHeapStaysUsable)
{
    void *huge = shmem_malloc((size_t)1 << 40);
    EXPECT_EQ(huge, nullptr);
    int *p = (int *)shmem_malloc(sizeof(int));
    ASSERT_NE(p, nullptr);
    shmem_free(p);
    EXPECT_EQ(shmem_align(3, 64), nullptr); // not a power of two
}

TEST(Heap, ReallocKeepsContents)
{
    int me = shmem_my_pe();
    int *p = (int *)shmem_malloc(10 * sizeof(int));
    ASSERT_NE(p, nullptr);
    for (int i = 0; i < 10; i++)
        p[i] = me * 100 + i;
    int *blocker = (int *)shmem_malloc(16);
    int *q = (int *)shmem_realloc(p, 100000 * sizeof(int)); // must move past blocker
    ASSERT_NE(q, nullptr);
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(q[i], me * 100 + i);
    q[99999] = me;
    int *r = (int *)shmem_realloc(q, 20 * sizeof(int)); // shrink in place
    EXPECT_EQ(r, q);
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(r[i], me * 100 + i);
    // The reallocated block is a valid remote target.
    shmem_int_p(&r[15], me, right_neighbor());
    shmem_barrier_all();
    EXPECT_EQ(r[15], left_neighbor());
    shmem_free(r);
    shmem_free(blocker);
    EXPECT_EQ(shmem_realloc(nullptr, 0), nullptr);
}

// A size near SIZE_MAX must fail, not wrap while rounding up and shrink the block.
TEST(Heap, ReallocHugeFailsAndKeepsBlock)
{
    int me = shmem_my_pe();
    long *a = (long *)shmem_malloc(32 * sizeof(long));
    ASSERT_NE(a, nullptr);
    for (int i = 0; i < 32; i++)
        a[i] = me * 1000 + i;
    EXPECT_EQ(shmem_realloc(a, SIZE_MAX - 10), nullptr);
    EXPECT_EQ(shmem_realloc(a, SIZE_MAX), nullptr);
    long *b = (long *)shmem_malloc(32 * sizeof(long));
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(b + 32 <= a || a + 32 <= b) << "a=" << a << " b=" << b;
    for (int i = 0; i < 32; i++)
        b[i] = -1;
    for (int i = 0; i < 32; i++)
        EXPECT_EQ(a[i], me * 1000 + i);
    shmem_free(b);
    shmem_free(a);
}

template <typename T> static void check_typed_rma(void (*put)(T *, const T *, size_t, int),
                                                  void (*get)(T *, const T *, size_t, int),
                                                  void (*p)(T *, T, int), T (*g)(const T *, int))
{
    const int n = 37, me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    T *buf = (T *)shmem_malloc(sizeof(T) * n * 2);
    ASSERT_NE(buf, nullptr);
    std::vector<T> src(n), got(n);
    for (int i = 0; i < n; i++)
        src[i] = (T)(me * 3 + i);
    put(buf, src.data(), n, right);
    p(&buf[n], (T)(me + 1), right);
    shmem_barrier_all();
    for (int i = 0; i < n; i++)
        EXPECT_EQ(buf[i], (T)(left * 3 + i)) << "i=" << i;
    EXPECT_EQ(buf[n], (T)(left + 1));
    get(got.data(), buf, n, right);
    for (int i = 0; i < n; i++)
        EXPECT_EQ(got[i], (T)(me * 3 + i));
    EXPECT_EQ(g(&buf[n], right), (T)(me + 1));
    shmem_free(buf);
}

TEST(Rma, TypedPutGetPG)
{
    check_typed_rma<int>(shmem_int_put, shmem_int_get, shmem_int_p, shmem_int_g);
    check_typed_rma<long>(shmem_long_put, shmem_long_get, shmem_long_p, shmem_long_g);
    check_typed_rma<double>(shmem_double_put, shmem_double_get, shmem_double_p, shmem_double_g);
    check_typed_rma<float>(shmem_float_put, shmem_float_get, shmem_float_p, shmem_float_g);
    check_typed_rma<char>(shmem_char_put, shmem_char_get, shmem_char_p, shmem_char_g);
    check_typed_rma<int8_t>(shmem_int8_put, shmem_int8_get, shmem_int8_p, shmem_int8_g);
    check_typed_rma<uint16_t>(shmem_uint16_put, shmem_uint16_get, shmem_uint16_p, shmem_uint16_g);
    check_typed_rma<uint64_t>(shmem_uint64_put, shmem_uint64_get, shmem_uint64_p, shmem_uint64_g);
    check_typed_rma<size_t>(shmem_size_put, shmem_size_get, shmem_size_p, shmem_size_g);
    check_typed_rma<ptrdiff_t>(shmem_ptrdiff_put, shmem_ptrdiff_get, shmem_ptrdiff_p,
                               shmem_ptrdiff_g);
    check_typed_rma<long double>(shmem_longdouble_put, shmem_longdouble_get, shmem_longdouble_p,
                                 shmem_longdouble_g);
    check_typed_rma<unsigned long long>(shmem_ulonglong_put, shmem_ulonglong_get,
                                        shmem_ulonglong_p, shmem_ulonglong_g);
}

TEST(Rma, NbiCompletesAtQuiet)
{
    const int n = 1000, me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    long *buf = (long *)shmem_malloc(sizeof(long) * n);
    std::vector<long> src(n), got(n, -1);
    for (int i = 0; i < n; i++)
        src[i] = me * 1000000L + i;
    shmem_long_put_nbi(buf, src.data(), n, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < n; i++)
        ASSERT_EQ(buf[i], left * 1000000L + i);
    shmem_long_get_nbi(got.data(), buf, n, right);
    shmem_quiet();
    for (int i = 0; i < n; i++)
        ASSERT_EQ(got[i], me * 1000000L + i);
    shmem_barrier_all();
    shmem_free(buf);
}

TEST(Rma, SizedAndMem)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    uint8_t *buf = (uint8_t *)shmem_calloc(1024, 1);
    uint8_t src[256];
    for (int i = 0; i < 256; i++)
        src[i] = (uint8_t)(me + i);
    shmem_put8(buf, src, 3, right);
    shmem_put16(buf + 16, src, 3, right);
    shmem_put32(buf + 32, src, 3, right);
    shmem_put64(buf + 64, src, 3, right);
    shmem_put128(buf + 128, src, 3, right);
    shmem_putmem(buf + 256, src, 256, right);
    shmem_putmem_nbi(buf + 512, src, 5, right);
    shmem_put32_nbi(buf + 600, src, 2, right);
    shmem_barrier_all();
    auto check = [&](int off, int nbytes) {
        for (int i = 0; i < nbytes; i++)
            EXPECT_EQ(buf[off + i], (uint8_t)(left + i)) << "off " << off << " i " << i;
        EXPECT_EQ(buf[off + nbytes], 0) << "wrote past the end at " << off;
    };
    check(0, 3);
    check(16, 6);
    check(32, 12);
    check(64, 24);
    check(128, 48);
    check(512, 5);
    check(600, 8);
    for (int i = 0; i < 256; i++)
        ASSERT_EQ(buf[256 + i], (uint8_t)(left + i));
    uint8_t got[64] = {0};
    shmem_get64(got, buf + 64, 3, right);
    for (int i = 0; i < 24; i++)
        EXPECT_EQ(got[i], (uint8_t)(me + i));
    memset(got, 0, sizeof got);
    shmem_getmem(got, buf + 256, 64, right);
    for (int i = 0; i < 64; i++)
        EXPECT_EQ(got[i], (uint8_t)(me + i));
    memset(got, 0, sizeof got);
    shmem_get8_nbi(got, buf, 3, right);
    shmem_getmem_nbi(got + 3, buf + 3, 0, right); // zero bytes: nothing happens
    shmem_quiet();
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(got[i], (uint8_t)(me + i));
    EXPECT_EQ(got[3], 0);
    shmem_barrier_all();
    shmem_free(buf);
}

// Every size the node copy treats specially (1-3, 4-7, 8-16, 17-32, 33-64, memmove above)
// at odd offsets, through the inline path (shmem_putmem/getmem) and the library's
// (shmem_ctx_putmem/getmem), and overlapping puts to this PE, which must act as memmove.
TEST(Rma, EverySmallSizeAndOverlap)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    const int kMax = 130, kSlot = 160;
    uint8_t *buf = (uint8_t *)shmem_calloc((size_t)kSlot * (kMax + 1) * 2, 1);
    uint8_t src[kMax], got[kMax + 1];
    for (int n = 1; n <= kMax; n++) {
        for (int i = 0; i < n; i++)
            src[i] = (uint8_t)(me * 31 + n + i);
        uint8_t *d = buf + (size_t)kSlot * n + n % 7;
        shmem_putmem(d, src, (size_t)n, right);
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, d + (size_t)kSlot * (kMax + 1), src, (size_t)n, right);
    }
    shmem_barrier_all();
    for (int n = 1; n <= kMax; n++) {
        for (int half = 0; half < 2; half++) {
            const uint8_t *d = buf + (size_t)kSlot * n + n % 7 + (size_t)half * kSlot * (kMax + 1);
            for (int i = 0; i < n; i++)
                ASSERT_EQ(d[i], (uint8_t)(left * 31 + n + i)) << "size " << n << " byte " << i;
            ASSERT_EQ(d[n], 0) << "size " << n << " wrote past the end";
            ASSERT_EQ(d[-1], 0) << "size " << n << " wrote before the start";
        }
        const uint8_t *r = buf + (size_t)kSlot * n + n % 7;
        memset(got, 0xee, sizeof got);
        if (n % 2)
            shmem_getmem(got, r, (size_t)n, right);
        else
            shmem_ctx_getmem(SHMEM_CTX_DEFAULT, got, r, (size_t)n, right);
        for (int i = 0; i < n; i++)
            ASSERT_EQ(got[i], (uint8_t)(me * 31 + n + i)) << "get size " << n;
        ASSERT_EQ(got[n], 0xee) << "get size " << n << " wrote past the end";
    }
    shmem_barrier_all();
    // Overlapping put to this PE, both directions, against memmove on a private copy. A
    // put to oneself is always a memory copy (node.c), never MPI_Put, which forbids
    // overlap (MPICH 4.2.1 asserted when SHMEMQ_NODE_PES=1 had sent it there).
    uint8_t *o = buf;
    std::vector<uint8_t> want(kSlot);
    for (int n = 1; n <= kMax - 10; n += 3) {
        for (int shift = -9; shift <= 9; shift += 6) {
            for (int i = 0; i < kSlot; i++)
                o[i] = want[i] = (uint8_t)(i * 7 + n);
            memmove(&want[10 + shift], &want[10], (size_t)n);
            if (n % 2)
                shmem_putmem(o + 10 + shift, o + 10, (size_t)n, me);
            else
                shmem_ctx_putmem(SHMEM_CTX_DEFAULT, o + 10 + shift, o + 10, (size_t)n, me);
            for (int i = 0; i < kSlot; i++)
                ASSERT_EQ(o[i], want[i]) << "overlap size " << n << " shift " << shift << " at " << i;
        }
    }
    shmem_barrier_all();
    shmem_free(buf);
}

TEST(Rma, LargeTransfer)
{
    const size_t n = (size_t)8 << 20;
    const int me = shmem_my_pe();
    char *buf = (char *)shmem_malloc(n);
    std::vector<char> src(n);
    for (size_t i = 0; i < n; i++)
        src[i] = (char)(i * 7 + me);
    shmem_putmem(buf, src.data(), n, right_neighbor());
    shmem_barrier_all();
    int left = left_neighbor();
    for (size_t i = 0; i < n; i += 4099)
        ASSERT_EQ(buf[i], (char)(i * 7 + left));
    ASSERT_EQ(buf[n - 1], (char)((n - 1) * 7 + left));
    shmem_barrier_all();
    shmem_free(buf);
}

TEST(Static, GlobalsAreSymmetric)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    global_int_target = -1;
    for (double &d : global_double_array)
        d = 0;
    shmem_barrier_all();
    shmem_int_p(&global_int_target, me, right);
    double vals[17];
    for (int i = 0; i < 17; i++)
        vals[i] = me + i / 4.0;
    shmem_double_put(global_double_array, vals, 17, right);
    shmem_barrier_all();
    EXPECT_EQ(global_int_target, left);
    for (int i = 0; i < 17; i++)
        EXPECT_EQ(global_double_array[i], left + i / 4.0);
    EXPECT_EQ(shmem_int_g(&global_int_target, right), me);
    shmem_barrier_all();
}

TEST(Static, OddAlignmentsLandExactly)
{
    // Targets at 1, 8 mod 16 and unaligned offsets inside .bss and .data: MPICH 4.0.2
    // moves puts 8 bytes low when a window base is 8 mod 16; the window is aligned.
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    struct odd_layout *o = static_odd_ptr();
    int64_t *d = static_data_ptr();
    memset(o, 0, sizeof *o);
    d[0] = d[1] = d[2] = 0;
    shmem_barrier_all();
    int64_t v1 = 1000 + me, v16 = 2000 + me, v24 = 3000 + me;
    shmem_putmem(&o->at1, &v1, sizeof v1, right);
    shmem_putmem(&o->at16, &v16, sizeof v16, right);
    shmem_putmem(&o->at24, &v24, sizeof v24, right);
    char bytes[37];
    for (int i = 0; i < 37; i++)
        bytes[i] = (char)(me + i + 1);
    shmem_putmem(o->bytes + 3, bytes, 31, right);
    int64_t dv[3] = {10 + me, 20 + me, 30 + me};
    shmem_int64_put(d + 1, dv + 1, 2, right);
    shmem_long_p(static_counter_ptr(), 7 + me, right);
    shmem_barrier_all();
    int64_t got;
    memcpy(&got, &o->at1, 8);
    EXPECT_EQ(got, 1000 + left);
    memcpy(&got, &o->at16, 8);
    EXPECT_EQ(got, 2000 + left);
    memcpy(&got, &o->at24, 8);
    EXPECT_EQ(got, 3000 + left);
    EXPECT_EQ(o->pad, 0);
    for (int i = 0; i < 7; i++)
        EXPECT_EQ(o->pad2[i], 0);
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(o->bytes[i], 0);
    for (int i = 0; i < 31; i++)
        EXPECT_EQ(o->bytes[3 + i], (char)(left + i + 1));
    EXPECT_EQ(o->bytes[34], 0);
    EXPECT_EQ(d[0], 0);
    EXPECT_EQ(d[1], 20 + left);
    EXPECT_EQ(d[2], 30 + left);
    EXPECT_EQ(*static_counter_ptr(), 7 + left);
    // gets from odd static addresses
    int64_t back = 0;
    shmem_getmem(&back, &o->at24, 8, right);
    EXPECT_EQ(back, 3000 + me);
    char bback[31];
    shmem_getmem(bback, o->bytes + 3, 31, right);
    for (int i = 0; i < 31; i++)
        EXPECT_EQ(bback[i], (char)(me + i + 1));
    shmem_barrier_all();
}

TEST(Sync, FenceOrdersPutsToOnePe)
{
    const int me = shmem_my_pe(), right = right_neighbor();
    long *data = (long *)shmem_calloc(2, sizeof(long));
    for (int round = 1; round <= 50; round++) {
        shmem_long_p(&data[0], round * 10 + me, right);
        shmem_fence();
        shmem_long_p(&data[1], round, right);
        shmem_barrier_all();
        EXPECT_EQ(data[1], round);
        EXPECT_EQ(data[0], round * 10 + left_neighbor());
        shmem_barrier_all();
    }
    shmem_sync_all();
    shmem_free(data);
}

TEST(Errors, InvalidArgumentsChangeNothing)
{
    // Without SHMEM_DEBUG these print a message and do nothing.
    const int n = shmem_n_pes();
    long *buf = (long *)shmem_calloc(4, sizeof(long));
    long src[4] = {1, 2, 3, 4}, local[4] = {0, 0, 0, 0};
    shmem_long_put(buf, src, 4, n);        // PE out of range
    shmem_long_put(buf, src, 4, -1);       // PE out of range
    shmem_long_put(local, src, 4, 0);      // destination not symmetric
    shmem_long_get(local, buf, 4, n + 5);  // PE out of range
    shmem_long_put(buf + 2, nullptr, 0, 0); // zero count with NULL is fine
    shmem_barrier_all();
    for (int i = 0; i < 4; i++) {
        EXPECT_EQ(local[i], 0);
        EXPECT_EQ(buf[i], 0);
    }
    shmem_barrier_all();
    shmem_free(buf);
}
