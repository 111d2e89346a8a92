// test_strided.cc: strided (iput/iget), block-strided (ibput/ibget) and byte-level
// (shmemx_iputmem/igetmem) RMA: typed, sized, ctx and generic forms, every method forced,
// heap and static targets, negative strides, and invalid calls that must change nothing.
#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstring>
#include <vector>
#include <unistd.h>
#include "test_util.h"

extern "C" {
// internal hooks of the strided engine (src/mpi_rma/strided_impl.h)
int shmemi_strided_set_method(int method);
int shmemi_strided_choose(int is_get, size_t blksize, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                          size_t nblks);
int shmemi_strided_load_table(const char *path);
int shmemi_strided_choose2(int is_get, size_t blksize, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                           size_t nblks, int *alt);
void strided_generic_put(double *dest, const double *src, long *ldest, const long *lsrc, int pe);
void strided_generic_get(double *dest, const double *src, long *ldest, const long *lsrc, int pe);
}

namespace {
enum { AUTO = 0, VECTOR = 1, BLOCKS = 2, PACK = 3 };

// Value element k of PE pe holds in a source array.
template <typename T> T val(int pe, size_t k)
{
    return (T)(1 + pe * 37 + (long)k % 91);
}

// Restores the automatic method when a test ends, whatever happens inside.
struct MethodGuard {
    explicit MethodGuard(int m) { old = shmemi_strided_set_method(m); }
    ~MethodGuard() { shmemi_strided_set_method(old); }
    int old;
};

constexpr size_t kSym = 4096;

// A symmetric scratch area per test, filled with a sentinel on every PE.
struct Sym {
    explicit Sym(size_t bytes = kSym) : n(bytes)
    {
        p = (unsigned char *)shmem_malloc(n);
        memset(p, 0xEE, n);
        shmem_barrier_all();
    }
    ~Sym()
    {
        shmem_barrier_all();
        shmem_free(p);
    }
    template <typename T> T *as(size_t byte_off = 0) { return (T *)(p + byte_off); }
    unsigned char *p;
    size_t n;
};

bool untouched(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i] != 0xEE)
            return false;
    return true;
}
} // namespace

static int64_t static_target[256];

// Typed iput: every element lands at dst*k, and nothing between is touched.
template <typename T, typename F> static void check_iput(F iput, ptrdiff_t dst, ptrdiff_t sst)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    const size_t n = 13;
    Sym s;
    std::vector<T> src(n * (size_t)sst);
    for (size_t k = 0; k < n; k++)
        src[k * sst] = val<T>(me, k);
    T *dest = s.as<T>();
    iput(dest, src.data(), dst, sst, n, right);
    shmem_barrier_all();
    for (size_t k = 0; k < n; k++) {
        ASSERT_EQ(dest[k * dst], val<T>(left, k)) << "k=" << k;
        for (ptrdiff_t j = 1; k + 1 < n && j < dst; j++)
            ASSERT_TRUE(untouched((unsigned char *)&dest[k * dst + j], 0, sizeof(T)));
    }
    ASSERT_TRUE(untouched(s.p, ((n - 1) * dst + 1) * sizeof(T), kSym));
}

template <typename T, typename F> static void check_iget(F iget, ptrdiff_t dst, ptrdiff_t sst)
{
    const int me = shmem_my_pe(), right = right_neighbor();
    const size_t n = 11;
    Sym s;
    T *src = s.as<T>();
    for (size_t k = 0; k < n; k++)
        src[k * sst] = val<T>(me, k);
    shmem_barrier_all();
    std::vector<T> dest(n * (size_t)dst, (T)-3);
    iget(dest.data(), src, dst, sst, n, right);
    for (size_t k = 0; k < n; k++) {
        ASSERT_EQ(dest[k * dst], val<T>(right, k)) << "k=" << k;
        for (ptrdiff_t j = 1; k + 1 < n && j < dst; j++)
            ASSERT_EQ(dest[k * dst + j], (T)-3);
    }
}

TEST(Iput, TypedSeveralTypes)
{
    check_iput<int>(shmem_int_iput, 1, 1);
    check_iput<int>(shmem_int_iput, 3, 2);
    check_iput<double>(shmem_double_iput, 2, 5);
    check_iput<long>(shmem_long_iput, 4, 1);
    check_iput<short>(shmem_short_iput, 2, 2);
    check_iput<int8_t>(shmem_int8_iput, 5, 3);
    check_iput<uint64_t>(shmem_uint64_iput, 2, 3);
    check_iput<long double>(shmem_longdouble_iput, 2, 2);
    check_iput<float>(shmem_float_iput, 1, 7);
}

TEST(Iget, TypedSeveralTypes)
{
    check_iget<int>(shmem_int_iget, 1, 1);
    check_iget<int>(shmem_int_iget, 2, 3);
    check_iget<double>(shmem_double_iget, 5, 2);
    check_iget<unsigned char>(shmem_uchar_iget, 3, 4);
    check_iget<size_t>(shmem_size_iget, 1, 6);
    check_iget<long long>(shmem_longlong_iget, 2, 2);
}

TEST(Iput, CtxForms)
{
    auto put = [](int *d, const int *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
        shmem_ctx_int_iput(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);
    };
    auto get = [](double *d, const double *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
        shmem_ctx_double_iget(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);
    };
    check_iput<int>(put, 3, 2);
    check_iget<double>(get, 2, 3);
}

TEST(Iput, Sized)
{
    check_iput<uint8_t>(shmem_iput8, 3, 2);
    check_iput<uint16_t>(shmem_iput16, 2, 3);
    check_iput<uint32_t>(shmem_iput32, 4, 1);
    check_iput<uint64_t>(shmem_iput64, 2, 2);
    check_iget<uint8_t>(shmem_iget8, 2, 5);
    check_iget<uint16_t>(shmem_iget16, 1, 2);
    check_iget<uint32_t>(shmem_iget32, 3, 3);
    check_iget<uint64_t>(shmem_iget64, 2, 1);
    auto cput = [](uint32_t *d, const uint32_t *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
        shmem_ctx_iput32(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);
    };
    auto cget = [](uint64_t *d, const uint64_t *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {
        shmem_ctx_iget64(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);
    };
    check_iput<uint32_t>(cput, 2, 2);
    check_iget<uint64_t>(cget, 3, 2);
}

TEST(Iput, Sized128)
{
    struct q {
        uint64_t a, b;
    };
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    Sym s;
    q src[8], back[8];
    for (int k = 0; k < 8; k++)
        src[k] = {(uint64_t)me, (uint64_t)k};
    q *dest = s.as<q>();
    shmem_iput128(dest, src, 3, 2, 4, right); // src 0,2,4,6 -> dest 0,3,6,9
    shmem_barrier_all();
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(dest[3 * k].a, (uint64_t)left);
        EXPECT_EQ(dest[3 * k].b, (uint64_t)(2 * k));
    }
    EXPECT_TRUE(untouched(s.p, sizeof(q), 3 * sizeof(q)));
    shmem_barrier_all();
    memset(back, 0, sizeof back);
    shmem_ctx_iget128(SHMEM_CTX_DEFAULT, back, dest, 2, 3, 4, right); // dest 0,3,6,9 -> 0,2,4,6
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(back[2 * k].a, (uint64_t)me); // right got it from me
        EXPECT_EQ(back[2 * k].b, (uint64_t)(2 * k));
        EXPECT_EQ(back[2 * k + 1].a, 0u);
    }
}

TEST(Iput, NegativeStrides)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    const size_t n = 9;
    Sym s;
    long src[2 * n];
    for (size_t k = 0; k < 2 * n; k++)
        src[k] = val<long>(me, k);
    long *dest = s.as<long>();
    // walk the destination backwards from element 3(n-1), source forwards by 2
    shmem_long_iput(dest + 3 * (n - 1), src, -3, 2, n, right);
    shmem_barrier_all();
    for (size_t k = 0; k < n; k++)
        EXPECT_EQ(dest[3 * (n - 1) - 3 * k], val<long>(left, 2 * k)) << k;
    shmem_barrier_all();
    // get with a negative source stride (remote) and a positive destination stride
    long back[n];
    shmem_long_iget(back, dest + 3 * (n - 1), 1, -3, n, right);
    for (size_t k = 0; k < n; k++)
        EXPECT_EQ(back[k], val<long>(me, 2 * k)) << k;
    shmem_barrier_all();
    // source stride 0 broadcasts one element
    long one = 4242 + me;
    shmem_long_iput(dest, &one, 1, 0, 5, right);
    shmem_barrier_all();
    for (int k = 0; k < 5; k++)
        EXPECT_EQ(dest[k], 4242 + left);
}

TEST(Ibput, BlocksTyped)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    const size_t bsize = 3, nblocks = 6;
    const ptrdiff_t dst = 5, sst = 4;
    Sym s;
    int src[sst * nblocks];
    for (size_t k = 0; k < sst * nblocks; k++)
        src[k] = val<int>(me, k);
    int *dest = s.as<int>();
    shmem_int_ibput(dest, src, dst, sst, bsize, nblocks, right);
    shmem_barrier_all();
    for (size_t b = 0; b < nblocks; b++) {
        for (size_t i = 0; i < bsize; i++)
            ASSERT_EQ(dest[b * dst + i], val<int>(left, b * sst + i));
        if (b + 1 < nblocks) {
            ASSERT_TRUE(untouched((unsigned char *)&dest[b * dst + bsize], 0,
                                  (dst - bsize) * sizeof(int)));
        }
    }
    shmem_barrier_all();
    // ibget the blocks back from the right neighbour (it holds my data) into a new layout
    int back[2 * nblocks * bsize];
    memset(back, 0, sizeof back);
    shmem_ctx_int_ibget(SHMEM_CTX_DEFAULT, back, dest, 2 * bsize, dst, bsize, nblocks, right);
    for (size_t b = 0; b < nblocks; b++)
        for (size_t i = 0; i < bsize; i++) {
            ASSERT_EQ(back[2 * b * bsize + i], val<int>(me, b * sst + i));
            ASSERT_EQ(back[2 * b * bsize + bsize + i], 0);
        }
}

TEST(Ibput, SizedAndCtx)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    Sym s;
    uint16_t src[40];
    for (int k = 0; k < 40; k++)
        src[k] = (uint16_t)(me * 100 + k);
    uint16_t *dest = s.as<uint16_t>();
    shmem_ibput16(dest, src, 4, 8, 2, 5, right); // blocks src[8b..8b+1] -> dest[4b..4b+1]
    shmem_barrier_all();
    for (int b = 0; b < 5; b++)
        for (int i = 0; i < 2; i++)
            EXPECT_EQ(dest[4 * b + i], (uint16_t)(left * 100 + 8 * b + i));
    shmem_barrier_all();
    uint64_t lsrc[12], lback[12] = {0};
    for (int k = 0; k < 12; k++)
        lsrc[k] = (uint64_t)me << 32 | (uint64_t)k;
    uint64_t *ld = s.as<uint64_t>(1024);
    shmem_ctx_ibput64(SHMEM_CTX_DEFAULT, ld, lsrc, 3, 4, 2, 3, right);
    shmem_barrier_all();
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 2; i++)
            EXPECT_EQ(ld[3 * b + i], (uint64_t)left << 32 | (uint64_t)(4 * b + i));
    shmem_barrier_all();
    shmem_ibget64(lback, ld, 2, 3, 2, 3, right);
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 2; i++)
            EXPECT_EQ(lback[2 * b + i], (uint64_t)me << 32 | (uint64_t)(4 * b + i));
    uint8_t b8[6] = {0};
    shmem_ctx_ibget8(SHMEM_CTX_DEFAULT, b8, (uint8_t *)ld, 3, 8, 2, 2, right);
    EXPECT_EQ(memcmp(b8, (uint8_t *)&lback[0], 2), 0);
    EXPECT_EQ(memcmp(b8 + 3, (uint8_t *)&lback[1], 2), 0);
}

TEST(Ibput, BlockSizeOneEqualsIput)
{
    const int me = shmem_my_pe(), right = right_neighbor();
    Sym s;
    double src[30];
    for (int k = 0; k < 30; k++)
        src[k] = val<double>(me, k);
    double *a = s.as<double>(), *b = s.as<double>(2048);
    shmem_double_iput(a, src, 3, 2, 10, right);
    shmem_double_ibput(b, src, 3, 2, 1, 10, right);
    shmem_barrier_all();
    EXPECT_EQ(memcmp(a, b, 2048), 0);
}

TEST(Iputmem, StructArray)
{
    struct rec {
        double x;
        int32_t id;
        char tag[4];
    };
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    const size_t n = 10;
    Sym s;
    rec recs[n];
    for (size_t k = 0; k < n; k++)
        recs[k] = {1.5 * k, (int32_t)(me * 1000 + k), {'a', 'b', 'c', 'd'}};
    // gather the id field of every record into a contiguous remote int array
    int32_t *ids = s.as<int32_t>();
    shmemx_iputmem(ids, &recs[0].id, sizeof(int32_t), sizeof(rec), sizeof(int32_t), n, right);
    // and (id, tag) pairs into a remote record array with a gap
    rec *rr = s.as<rec>(1024);
    shmemx_iputmem(&rr[0].id, &recs[0].id, 2 * sizeof(rec), sizeof(rec), 8, n, right);
    shmem_barrier_all();
    for (size_t k = 0; k < n; k++) {
        EXPECT_EQ(ids[k], (int32_t)(left * 1000 + k));
        EXPECT_EQ(rr[2 * k].id, (int32_t)(left * 1000 + k));
        EXPECT_EQ(memcmp(rr[2 * k].tag, "abcd", 4), 0);
        EXPECT_TRUE(untouched((unsigned char *)&rr[2 * k].x, 0, sizeof(double)));
    }
    shmem_barrier_all();
    // get the ids back into the id fields of local records, walking backwards
    rec mine[n];
    memset(mine, 0, sizeof mine);
    shmemx_igetmem(&mine[n - 1].id, ids, -(ptrdiff_t)sizeof(rec), sizeof(int32_t),
                   sizeof(int32_t), n, right);
    for (size_t k = 0; k < n; k++) {
        EXPECT_EQ(mine[n - 1 - k].id, (int32_t)(me * 1000 + k));
        EXPECT_EQ(mine[n - 1 - k].x, 0.0);
    }
}

// Every method on the same shapes, put and get, gives the same bytes.
TEST(Methods, AllGiveTheSameResult)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    struct shape {
        size_t blk, n;
        ptrdiff_t ds, ss;
    } shapes[] = {{1, 20, 3, 2},     {8, 16, 16, 8},   {8, 12, 8, 24},  {24, 12, 40, 24},
                  {24, 10, 24, 48},  {5, 12, 7, -6},   {16, 10, -32, 16}, {100, 7, 250, 100},
                  {4, 9, 8, 0},      {64, 16, 64, 64}, {3, 1, 3, 3}};
    const size_t buf = 4096;
    std::vector<unsigned char> src(buf), local(buf);
    for (size_t i = 0; i < buf; i++)
        src[i] = (unsigned char)(me * 31 + i * 7 + 1);
    // one put region per method, then the source of the gets
    Sym s(5 * buf);
    unsigned char *gsrc = s.p + 4 * buf;
    memcpy(gsrc, src.data(), buf);
    for (const shape &sh : shapes) {
        // first block start so that negative strides stay inside the buffers
        size_t d0 = sh.ds < 0 ? (size_t)(-sh.ds) * (sh.n - 1) : 0;
        size_t s0 = sh.ss < 0 ? (size_t)(-sh.ss) * (sh.n - 1) : 0;
        memset(s.p, 0xEE, 4 * buf);
        shmem_barrier_all();
        for (int m = AUTO; m <= PACK; m++) {
            MethodGuard g(m);
            shmemx_iputmem(s.p + m * buf + d0, src.data() + s0, sh.ds, sh.ss, sh.blk, sh.n,
                           right);
        }
        // a plain local model of the transfers: from my left (put), from my right (get)
        std::vector<unsigned char> model(buf, 0xEE), gmodel(buf, 0xEE);
        for (size_t k = 0; k < sh.n; k++)
            for (size_t i = 0; i < sh.blk; i++) {
                size_t at = d0 + k * sh.ds + i, from = s0 + k * sh.ss + i;
                model[at] = (unsigned char)(left * 31 + from * 7 + 1);
                gmodel[at] = (unsigned char)(right * 31 + from * 7 + 1);
            }
        for (int m = AUTO; m <= PACK; m++) {
            MethodGuard g(m);
            memset(local.data(), 0xEE, buf);
            shmemx_igetmem(local.data() + d0, gsrc + s0, sh.ds, sh.ss, sh.blk, sh.n, right);
            ASSERT_EQ(memcmp(local.data(), gmodel.data(), buf), 0)
                << "get method " << m << " blk " << sh.blk << " ds " << sh.ds << " ss " << sh.ss;
        }
        shmem_barrier_all();
        for (int m = AUTO; m <= PACK; m++)
            ASSERT_EQ(memcmp(s.p + m * buf, model.data(), buf), 0)
                << "put method " << m << " blk " << sh.blk << " ds " << sh.ds << " ss " << sh.ss;
    }
}

TEST(Methods, TypedFormsUnderEveryMethod)
{
    for (int m = AUTO; m <= PACK; m++) {
        MethodGuard g(m);
        check_iput<double>(shmem_double_iput, 3, 2);
        check_iget<int>(shmem_int_iget, 2, 4);
        check_iput<char>(shmem_char_iput, 2, 1);
    }
}

TEST(Static, GlobalArrayTarget)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    for (int m = AUTO; m <= PACK; m++) {
        MethodGuard g(m);
        for (auto &v : static_target)
            v = -1;
        shmem_barrier_all();
        int64_t src[64];
        for (int k = 0; k < 64; k++)
            src[k] = me * 1000 + k;
        shmem_int64_ibput(static_target, src, 8, 4, 3, 16, right);
        shmem_barrier_all();
        for (int b = 0; b < 16; b++) {
            for (int i = 0; i < 3; i++)
                ASSERT_EQ(static_target[8 * b + i], left * 1000 + 4 * b + i);
            for (int i = 3; i < 8 && b < 15; i++)
                ASSERT_EQ(static_target[8 * b + i], -1);
        }
        int64_t back[16];
        shmem_int64_iget(back, static_target, 1, 8, 16, right);
        for (int b = 0; b < 16; b++)
            ASSERT_EQ(back[b], me * 1000 + 4 * b);
        shmem_barrier_all();
    }
}

TEST(Generic, C11Selections)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    Sym s;
    double dsrc[8];
    long lsrc[12];
    for (int k = 0; k < 8; k++)
        dsrc[k] = me + 0.25 * k;
    for (int k = 0; k < 12; k++)
        lsrc[k] = me * 100 + k;
    double *dd = s.as<double>();
    long *ld = s.as<long>(1024);
    strided_generic_put(dd, dsrc, ld, lsrc, right);
    shmem_barrier_all();
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(dd[2 * k], left + 0.25 * k);
        EXPECT_EQ(dd[2 * k + 1], left + 0.25 * (k + 4));
    }
    // ibput(ld, lsrc, dst 3, sst 2, bsize 2, nblocks 3): ld[3b..3b+1] = lsrc[2b..2b+1]
    // then ld[3b+2] = lsrc[6+b] (ctx form, bsize 1, sst 1)
    for (int b = 0; b < 3; b++) {
        EXPECT_EQ(ld[3 * b], left * 100 + 2 * b);
        EXPECT_EQ(ld[3 * b + 1], left * 100 + 2 * b + 1);
        EXPECT_EQ(ld[3 * b + 2], left * 100 + 6 + b);
    }
    shmem_barrier_all();
    double dback[8] = {0};
    long lback[9] = {0};
    strided_generic_get(dback, dd, lback, ld, right);
    for (int k = 0; k < 4; k++) {
        EXPECT_EQ(dback[k], me + 0.25 * k);           // dd[0,2,4,6]
        EXPECT_EQ(dback[4 + k], me + 0.25 * (k + 4)); // dd[1,3,5,7]
    }
    // ibget(lback, ld, dst 2, sst 3, bsize 2, nblocks 3) fills lback[2b..2b+1] = ld[3b..3b+1]
    // (lback[6..8] = ld[2,5,8] afterwards: ctx form, dst 1)
    for (int b = 0; b < 3; b++) {
        EXPECT_EQ(lback[2 * b], me * 100 + 2 * b);
        EXPECT_EQ(lback[2 * b + 1], me * 100 + 2 * b + 1);
        EXPECT_EQ(lback[6 + b], me * 100 + 6 + b);
    }
}

TEST(Edge, ZeroElementsIsNoop)
{
    const int me = shmem_my_pe(), right = right_neighbor();
    Sym s;
    int src[4] = {me, me, me, me};
    shmem_int_iput(s.as<int>(), src, 2, 1, 0, right);
    shmem_int_ibput(s.as<int>(), src, 2, 1, 2, 0, right);
    shmem_int_ibput(s.as<int>(), src, 2, 1, 0, 3, right);
    shmemx_iputmem(s.p, src, 8, 4, 4, 0, right);
    int back[4] = {7, 7, 7, 7};
    shmem_int_iget(back, s.as<int>(), 1, 1, 0, right);
    shmem_barrier_all();
    EXPECT_TRUE(untouched(s.p, 0, kSym));
    for (int v : back)
        EXPECT_EQ(v, 7);
}

TEST(Edge, OneBlockIgnoresStrides)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    Sym s;
    int32_t v = 77 + me;
    shmemx_iputmem(s.p, &v, PTRDIFF_MIN, PTRDIFF_MIN, sizeof v, 1, right);
    shmem_int32_iput(s.as<int32_t>(16), &v, -5, 9, 1, right);
    shmem_barrier_all();
    EXPECT_EQ(*s.as<int32_t>(), 77 + left);
    EXPECT_EQ(*s.as<int32_t>(16), 77 + left);
    EXPECT_TRUE(untouched(s.p, 4, 16));
    EXPECT_TRUE(untouched(s.p, 20, kSym));
}

TEST(Edge, InvalidCallsChangeNothing)
{
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = right_neighbor();
    Sym s;
    int src[16];
    for (int k = 0; k < 16; k++)
        src[k] = me + k;
    int *dest = s.as<int>();
    int not_symmetric[64];
    memset(not_symmetric, 0xEE, sizeof not_symmetric);
    testing::internal::CaptureStderr();
    shmem_int_iput(dest, src, 2, 1, 8, n);      // PE out of range
    shmem_int_iput(dest, src, 2, 1, 8, -1);
    shmem_int_iget(src, dest, 1, 2, 8, n);
    shmem_int_iput(not_symmetric, src, 2, 1, 8, right); // not symmetric
    shmem_int_iput(dest, src, 0, 1, 8, right);  // destination elements overlap
    shmem_int_ibput(dest, src, 2, 4, 3, 4, right); // blocks overlap (dst < bsize)
    shmem_int_ibput(dest, src, 0, 1, 1, 4, right); // dst < 1 forbidden by 1.6
    shmem_int_ibput(dest, src, 4, -1, 1, 4, right); // sst < 1 forbidden by 1.6
    shmem_int_ibget(src, dest, -2, 1, 1, 4, right);
    // span running past the end of the symmetric heap
    shmem_int_iput(dest, src, PTRDIFF_MAX / 2, 1, 8, right);
    shmemx_iputmem(dest, src, 4, 4, 8, 3, right); // bytes: blocks overlap
    shmem_int_iput(dest, src, 2, 1, 8, right);   // valid, on an invalid context:
    shmem_ctx_int_iput(SHMEM_CTX_INVALID, dest + 100, src, 2, 1, 8, right);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("out of range"), std::string::npos);
    EXPECT_NE(err.find("not symmetric"), std::string::npos);
    EXPECT_NE(err.find("overlap"), std::string::npos);
    EXPECT_NE(err.find(">= 1"), std::string::npos);
    shmem_barrier_all();
    for (int k = 0; k < 8; k++)
        EXPECT_EQ(dest[2 * k], left_neighbor() + k);
    EXPECT_TRUE(untouched(s.p, 16 * sizeof(int), kSym));
    for (int k = 0; k < 16; k++)
        EXPECT_EQ(src[k], me + k);
    EXPECT_TRUE(untouched((unsigned char *)not_symmetric, 0, sizeof not_symmetric));
}

TEST(Table, ChoiceAndFileLoading)
{
    // every choice for a strided shape is a real method
    for (size_t blk = 1; blk <= (1u << 20); blk *= 4)
        for (int r = 2; r <= 128; r *= 2)
            for (size_t n = 1; n <= 100000; n *= 10) {
                int m = shmemi_strided_choose(0, blk, (ptrdiff_t)(blk * r), (ptrdiff_t)blk, n);
                ASSERT_TRUE(m == VECTOR || m == BLOCKS || m == PACK);
            }
    char path[64];
    snprintf(path, sizeof path, "/tmp/shmemq_strided_table_%d_%d", (int)getpid(),
             shmem_my_pe());
    FILE *f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fprintf(f, "# test table\n*  *  * * vector\nput 1-64 2-8 100-* blocks\nget 4K-* * * pack\n"
               "get 1-16 64-* * blocks/pack\n");
    fclose(f);
    ASSERT_EQ(shmemi_strided_load_table(path), 0);
    int alt = -1;
    EXPECT_EQ(shmemi_strided_choose2(1, 8, 8 * 64, 8, 100, &alt), BLOCKS);
    EXPECT_EQ(alt, PACK);
    EXPECT_EQ(shmemi_strided_choose2(1, 8, 8 * 8, 8, 100, &alt), VECTOR);
    EXPECT_EQ(alt, 0);
    // stride classes (ratio rounded up, then powers of two) for odd block sizes too
    f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fprintf(f, "* * * * vector\nput * 3-4 * pack\nput * 65-* * blocks\n");
    fclose(f);
    ASSERT_EQ(shmemi_strided_load_table(path), 0);
    for (size_t blk : {1, 3, 8, 24, 1000, 4096}) {
        const ptrdiff_t b = (ptrdiff_t)blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, 2 * b, b, 10), VECTOR) << blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, 2 * b + 1, b, 10), PACK) << blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, b, -4 * b, 10), PACK) << blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, 4 * b + 1, b, 10), VECTOR) << blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, 64 * b, b, 10), VECTOR) << blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, 64 * b + 1, b, 10), BLOCKS) << blk;
        EXPECT_EQ(shmemi_strided_choose(0, blk, 1000 * b, b, 10), BLOCKS) << blk;
    }
    f = fopen(path, "w"); // the first file again, for the checks below
    ASSERT_NE(f, nullptr);
    fprintf(f, "*  *  * * vector\nput 1-64 2-8 100-* blocks\nget 4K-* * * pack\n");
    fclose(f);
    ASSERT_EQ(shmemi_strided_load_table(path), 0);
    EXPECT_EQ(shmemi_strided_choose(0, 32, 128, 32, 1000), BLOCKS);
    EXPECT_EQ(shmemi_strided_choose(0, 32, 128, 32, 10), VECTOR);
    EXPECT_EQ(shmemi_strided_choose(0, 32, 32 * 64, 32, 1000), VECTOR);
    EXPECT_EQ(shmemi_strided_choose(1, 8192, 16384, 8192, 3), PACK);
    EXPECT_EQ(shmemi_strided_choose(1, 32, 128, 32, 1000), VECTOR);
    // a malformed file is refused and the table stays as it was
    f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fprintf(f, "* * * * pack\nput 1-64 two * blocks\n");
    fclose(f);
    testing::internal::CaptureStderr();
    EXPECT_NE(shmemi_strided_load_table(path), 0);
    std::string err1 = testing::internal::GetCapturedStderr();
    EXPECT_NE(err1.find(":2:"), std::string::npos) << err1;
    f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fprintf(f, "* * * * pack\nput 1-64 * * blocks/fast\n");
    fclose(f);
    testing::internal::CaptureStderr();
    EXPECT_NE(shmemi_strided_load_table(path), 0);
    EXPECT_NE(shmemi_strided_load_table("/nonexistent/table"), 0);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(":2:"), std::string::npos) << err;
    EXPECT_EQ(shmemi_strided_choose(0, 32, 128, 32, 1000), BLOCKS);
    unlink(path);
    // back to the built-in defaults: an empty rule file
    f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fclose(f);
    EXPECT_EQ(shmemi_strided_load_table(path), 0);
    unlink(path);
}

// Cells with an alternative ("A/B"): the engine switches between the two at run time;
// every call must still move exactly the right bytes, whichever method it used.
TEST(Table, AlternativeMethodsMoveTheRightData)
{
    const int me = shmem_my_pe(), right = right_neighbor(), left = left_neighbor();
    char path[64];
    snprintf(path, sizeof path, "/tmp/shmemq_strided_alt_%d_%d", (int)getpid(), me);
    FILE *f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fprintf(f, "put * * * pack/blocks\nget * * * vector/pack\nget 1-8 * * blocks/vector\n");
    fclose(f);
    ASSERT_EQ(shmemi_strided_load_table(path), 0);
    unlink(path);
    const size_t buf = 2048;
    std::vector<unsigned char> src(buf), local(buf);
    for (size_t i = 0; i < buf; i++)
        src[i] = (unsigned char)(me * 13 + i * 5 + 3);
    Sym s(2 * buf);
    memcpy(s.p + buf, src.data(), buf);
    shmem_barrier_all();
    const size_t shapes[][3] = {{8, 24, 40}, {24, 40, 20}, {4, 12, 60}}; // blk, stride, n
    for (const auto &sh : shapes)
        for (int it = 0; it < 70; it++) { // > 2 exploration periods of 32 calls
            size_t blk = sh[0], st = sh[1], n = sh[2];
            unsigned char tag = (unsigned char)it;
            for (size_t i = 0; i < buf; i++)
                local[i] = (unsigned char)(src[i] + tag);
            memset(s.p, 0xEE, buf);
            shmem_barrier_all();
            shmemx_iputmem(s.p, local.data(), (ptrdiff_t)st, (ptrdiff_t)st, blk, n, right);
            shmem_barrier_all();
            for (size_t k = 0; k < n; k++)
                for (size_t i = 0; i < st && k * st + i < buf; i++) {
                    size_t at = k * st + i;
                    unsigned char want = i < blk ? (unsigned char)((unsigned char)(left * 13 + at * 5 + 3) + tag)
                                                 : 0xEE;
                    ASSERT_EQ(s.p[at], want) << "put blk " << blk << " iteration " << it;
                }
            memset(local.data(), 0, buf);
            shmemx_igetmem(local.data(), s.p + buf, (ptrdiff_t)st, (ptrdiff_t)st, blk, n, right);
            for (size_t k = 0; k < n; k++)
                for (size_t i = 0; i < st && k * st + i < buf; i++) {
                    size_t at = k * st + i;
                    unsigned char want = i < blk ? (unsigned char)(right * 13 + at * 5 + 3) : 0;
                    ASSERT_EQ(local[at], want) << "get blk " << blk << " iteration " << it;
                }
        }
    // back to the built-in defaults
    f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fclose(f);
    EXPECT_EQ(shmemi_strided_load_table(path), 0);
    unlink(path);
}
