// model_util.h: what the randomised (model-checked) and stress tests share: a seeded
// generator that gives the same stream on every machine, and the knobs that scale them.
#ifndef SHMEMQ_TEST_MODEL_UTIL_H
#define SHMEMQ_TEST_MODEL_UTIL_H

#include <shmem.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>

namespace model {

// splitmix64: tiny, and unlike <random>'s distributions its output does not depend on
// the C++ library, so a printed seed reproduces a failure anywhere.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed = 1) : s(seed) {}
    uint64_t next()
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    bool chance(unsigned pct) { return below(100) < pct; }
};

// A stream of its own for (seed, stream): PEs and threads draw independently, and any PE
// can replay any other's stream.
inline Rng stream(uint64_t seed, uint64_t id)
{
    Rng r(seed ^ (id * 0xD1B54A32D192ED03ULL));
    r.next();
    return r;
}

inline uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0')
        return def;
    char *end = nullptr;
    unsigned long long x = std::strtoull(v, &end, 0);
    return (end && *end == '\0') ? (uint64_t)x : def;
}

// SHMEMQ_MODEL_SEED: the base seed (fixed in make check); SHMEMQ_MODEL_ITERS: steps per
// randomised test; SHMEMQ_STRESS_SCALE: multiplies every stress loop count.
inline uint64_t base_seed() { return env_u64("SHMEMQ_MODEL_SEED", 20261125); }
inline uint64_t model_iters(uint64_t def) { return env_u64("SHMEMQ_MODEL_ITERS", def); }
inline uint64_t stress_scale() { return env_u64("SHMEMQ_STRESS_SCALE", 1); }

inline bool thread_multiple()
{
    int provided = 0;
    shmem_query_thread(&provided);
    return provided == SHMEM_THREAD_MULTIPLE;
}

inline double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

} // namespace model

#endif
