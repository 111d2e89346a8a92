// test_coll_common.h: pieces test_coll.cc and test_coll_hier.cc share.
#ifndef TEST_COLL_COMMON_H
#define TEST_COLL_COMMON_H

#include <gtest/gtest.h>
#include <shmem.h>
#include <cstddef>

namespace coll_test {

// Made once for the binary (a team split costs a communicator: slow with 4 PEs on 2
// cores): the environment runs inside RUN_ALL_TESTS, between shmem_init and
// shmem_finalize, and makes *slot there.
template <class T> struct MadeOnce : ::testing::Environment {
    T **slot;
    explicit MadeOnce(T **s) : slot(s) {}
    void SetUp() override { *slot = new T; }
    void TearDown() override
    {
        delete *slot;
        *slot = nullptr;
    }
};

// Symmetric scratch (shmem_malloc is collective over WORLD, so every PE allocates).
struct Sym {
    void *p;
    explicit Sym(size_t bytes) : p(shmem_malloc(bytes)) {}
    ~Sym()
    {
        shmem_barrier_all();
        shmem_free(p);
    }
    template <typename T> T *as() { return static_cast<T *>(p); }
};

} // namespace coll_test

#endif
