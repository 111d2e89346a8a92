// test_model.cc: randomised comm-queue tests checked against a reference model (issue 13;
// the data-queue model is test_model_data.cc, in the same binary).
//
// Each test drives a random sequence of queue calls (push, progress, query, flush,
// destroy and re-create with a random config, calls on a destroyed handle, bad
// arguments) and checks every return code and every delivered byte against a small
// model of the queue kept in the test. The queue's targets are this PE (SelfTarget),
// the right neighbour (RightNeighbour; at 1 PE that is this PE again) or every PE
// (AllTargets). Random max_elems make FULL points; the model knows an upper bound of
// the outstanding count (exact after every query, progress and flush) and so which
// pushes may and must return FULL. Inside one flush epoch a word is written once
// (PUT/SET), read (GET), or changed by one commutative op (ADD/INC, AND, OR, XOR), so
// its value after the flush is known whatever the order the library applied them in.
// The seed is fixed (SHMEMQ_MODEL_SEED overrides it, SHMEMQ_MODEL_ITERS sets the number
// of steps); every failure message carries the seed and the step.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "../test_util.h"
#include "model_util.h"

namespace {

using model::Rng;
using model::thread_multiple;

// ---------------------------------------------------------------- comm queues

const int kW = 40;  // int64 words on the target
const int kV = 40;  // int32 words
const int kB = 256; // bytes (pushmem PUT/GET)

enum Use : uint8_t { U_NONE, U_READ, U_WRITE, U_ADD, U_AND, U_OR, U_XOR };

Use use_of(shmem_op_type_t op)
{
    switch (op) {
    case SHMEM_OP_GET: return U_READ;
    case SHMEM_OP_PUT:
    case SHMEM_OP_ATOMIC_SET: return U_WRITE;
    case SHMEM_OP_ATOMIC_ADD:
    case SHMEM_OP_ATOMIC_INC: return U_ADD;
    case SHMEM_OP_ATOMIC_AND: return U_AND;
    case SHMEM_OP_ATOMIC_OR: return U_OR;
    default: return U_XOR;
    }
}

// May a location used `u` so far in this epoch take `want` as well?
bool compatible(Use u, Use want)
{
    if (u == U_NONE)
        return true;
    return u == want && want != U_WRITE; // reads with reads, one commutative op with itself
}

template <typename T> T apply(shmem_op_type_t op, T old, T x)
{
    typedef typename std::make_unsigned<T>::type U;
    switch (op) {
    case SHMEM_OP_PUT:
    case SHMEM_OP_ATOMIC_SET: return x;
    case SHMEM_OP_ATOMIC_ADD: return (T)((U)old + (U)x);
    case SHMEM_OP_ATOMIC_INC: return (T)((U)old + 1u);
    case SHMEM_OP_ATOMIC_AND: return (T)(old & x);
    case SHMEM_OP_ATOMIC_OR: return (T)(old | x);
    default: return (T)(old ^ x);
    }
}

struct PendingGet {
    size_t off, len;                 // in the local result buffer
    std::vector<unsigned char> want; // the target's bytes when the GET was pushed
};

class CommModel {
  public:
    // Every PE writes only its own region (PE number * size) of each target's arrays, so
    // the model of a target region is this PE's alone.
    CommModel(uint64_t seed, const std::vector<int> &targets, int steps)
        : rng_(seed), steps_(steps), t_(targets.size())
    {
        size_t n = (size_t)shmem_n_pes(), me = (size_t)shmem_my_pe();
        wbase_ = static_cast<int64_t *>(shmem_calloc(n * kW, sizeof(int64_t)));
        vbase_ = static_cast<int32_t *>(shmem_calloc(n * kV, sizeof(int32_t)));
        bbase_ = static_cast<unsigned char *>(shmem_calloc(n * kB, 1));
        w_ = wbase_ + me * kW;
        v_ = vbase_ + me * kV;
        b_ = bbase_ + me * kB;
        for (size_t i = 0; i < targets.size(); i++) {
            std::memset(&t_[i], 0, sizeof t_[i]);
            t_[i].pe = targets[i];
        }
        pick(0);
        gbuf_.assign(1 << 16, 0);
        new_epoch();
        shmem_barrier_all();
    }
    ~CommModel()
    {
        shmem_barrier_all(); // every PE checked its target before the memory goes
        shmem_free(wbase_);
        shmem_free(vbase_);
        shmem_free(bbase_);
    }

    void run()
    {
        create();
        for (step_ = 0; step_ < steps_ && !::testing::Test::HasFailure(); step_++) {
            SCOPED_TRACE(where());
            uint64_t r = rng_.below(100);
            if (r < 58)
                push();
            else if (r < 62)
                bad_push();
            else if (r < 74)
                progress();
            else if (r < 84)
                query();
            else if (r < 93)
                flush(rng_.chance(60));
            else if (r < 97)
                recreate();
            else
                stale();
        }
        if (!::testing::Test::HasFailure()) {
            SCOPED_TRACE(where());
            flush(true);
            EXPECT_EQ(shmem_queue_comm_destroy(q_), 0);
            q_ = nullptr;
        } else if (q_ != nullptr) {
            shmem_queue_comm_destroy(q_);
        }
        unsetenv("SHMEMQ_COMM_PATH");
        unsetenv("SHMEMQ_COMBINE");
        if (shmem_my_pe() == 0)
            std::printf("[  MODEL   ] seed %llu: %d steps, %llu pushes accepted, %llu FULL, %llu "
                        "errors as expected, %llu flushes, %llu queues\n",
                        (unsigned long long)rng_seed_, step_, (unsigned long long)n_ok_,
                        (unsigned long long)n_full_, (unsigned long long)n_err_,
                        (unsigned long long)n_flush_, (unsigned long long)n_queues_);
    }

  private:
    std::string where() const
    {
        return "seed " + std::to_string(rng_seed_) + " (SHMEMQ_MODEL_SEED), step " +
               std::to_string(step_) + ", PE " + std::to_string(shmem_my_pe()) + " -> " +
               std::to_string(pe_) + ", queue max_elems " + std::to_string(max_) + " op_type " +
               std::to_string((int)cfg_op_) + " path " + path_;
    }

    void create()
    {
        static const uint64_t maxes[] = {1, 2, 3, 4, 5, 8, 13, 32, 100, 0};
        static const shmem_op_type_t ops[] = {SHMEM_OP_ANY, SHMEM_OP_ANY, SHMEM_OP_ANY,
                                              SHMEM_OP_ATOMIC_ADD, SHMEM_OP_PUT, SHMEM_OP_GET,
                                              SHMEM_OP_ATOMIC_XOR};
        static const double timeouts[] = {SHMEM_QUEUE_MAX_TIMEOUT, SHMEM_QUEUE_MAX_TIMEOUT, 0.0,
                                          0.0005};
        uint64_t m = maxes[rng_.below(sizeof maxes / sizeof maxes[0])];
        cfg_op_ = ops[rng_.below(sizeof ops / sizeof ops[0])];
        shmem_queue_config_t c = comm_queue_cfg(cfg_op_, m, timeouts[rng_.below(4)]);
        if (thread_multiple() && rng_.chance(25))
            c.thread_model = SHMEM_QUEUE_SHARED;
        path_ = rng_.chance(50) ? "rma" : "am";
        setenv("SHMEMQ_COMM_PATH", path_, 1);
        setenv("SHMEMQ_COMBINE", rng_.chance(50) ? "1" : "0", 1);
        ASSERT_EQ(shmem_queue_comm_create(&q_, &c), 0) << where();
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q_, &a), 0);
        EXPECT_EQ(a.outstanding_elems, 0u);
        max_ = a.available_elems;
        if (m != 0) {
            EXPECT_EQ(max_, m) << where();
        }
        ub_ = 0;
        last_full_ = false;
        n_queues_++;
    }

    // A flush (or destroy) completed every pushed operation: GET results are in, and the
    // target's memory is what the model says.
    void new_epoch()
    {
        for (Target &t : t_) {
            std::memset(t.uw, 0, sizeof t.uw);
            std::memset(t.uv, 0, sizeof t.uv);
            std::memset(t.ub8, 0, sizeof t.ub8);
        }
        gets_.clear();
        goff_ = 0;
    }
    void epoch_done(bool verify)
    {
        for (const PendingGet &g : gets_)
            ASSERT_EQ(std::memcmp(&gbuf_[g.off], g.want.data(), g.len), 0)
                << "GET of " << g.len << " bytes at result offset " << g.off << ": " << where();
        new_epoch();
        if (!verify)
            return;
        std::vector<int64_t> w(kW);
        std::vector<int32_t> v(kV);
        std::vector<unsigned char> b(kB);
        for (size_t k = 0; k < t_.size(); k++) {
            pick(k);
            shmem_getmem(w.data(), w_, sizeof(int64_t) * kW, pe_);
            shmem_getmem(v.data(), v_, sizeof(int32_t) * kV, pe_);
            shmem_getmem(b.data(), b_, kB, pe_);
            for (int i = 0; i < kW; i++)
                ASSERT_EQ(w[i], mw_[i]) << "int64 word " << i << ": " << where();
            for (int i = 0; i < kV; i++)
                ASSERT_EQ(v[i], mv_[i]) << "int32 word " << i << ": " << where();
            for (int i = 0; i < kB; i++)
                ASSERT_EQ(b[i], mb_[i]) << "byte " << i << ": " << where();
        }
    }

    // Room for a GET result of len bytes (8-aligned); false when the epoch's buffer is used up.
    bool get_room(size_t len, size_t *off)
    {
        size_t o = (goff_ + 7) & ~(size_t)7;
        if (o + len > gbuf_.size())
            return false;
        *off = o;
        goff_ = o + len;
        return true;
    }

    // Checks a push's return code against the model. `cost` operations, `ok` what the
    // call returns when it is not FULL.
    void check_push(int rc, uint64_t cost, bool *accepted)
    {
        SCOPED_TRACE(what_);
        *accepted = false;
        if (cost > max_) {
            ASSERT_EQ(rc, SHMEM_QUEUE_ERR_ARG) << "a push of " << cost << " ops can never fit: " << where();
            return;
        }
        if (rc == SHMEM_QUEUE_ERR_FULL) {
            ASSERT_GT(ub_ + cost, max_) << "FULL with room: " << where();
            size_t s = 0;
            ASSERT_EQ(shmem_query_size(q_, &s), 0);
            ASSERT_GT(s + cost, max_) << "FULL, but query_size says " << s << ": " << where();
            ub_ = s;
            last_full_ = true;
            n_full_++;
            return;
        }
        ASSERT_EQ(rc, 0) << where();
        if (synced_ && ub_ + cost > max_) {
            // Only a PUT/GET done inside the push (a copy to a PE of this node) may
            // pass a full queue: it was never outstanding.
            size_t s = 0;
            ASSERT_EQ(shmem_query_size(q_, &s), 0);
            ASSERT_TRUE(rw_ && s == ub_) << "accepted past max_elems (" << s
                                         << " outstanding now): " << where();
            *accepted = true;
            return;
        }
        ub_ += cost;
        synced_ = false;
        *accepted = true;
        n_ok_++;
    }

    // The model of target k becomes the current one.
    void pick(size_t k)
    {
        Target &t = t_[k];
        pe_ = t.pe;
        mw_ = t.mw;
        mv_ = t.mv;
        mb_ = t.mb;
        uw_ = t.uw;
        uv_ = t.uv;
        ub8_ = t.ub8;
    }

    void push()
    {
        pick((size_t)rng_.below(t_.size()));
        static const shmem_op_type_t all[] = {SHMEM_OP_PUT,        SHMEM_OP_GET,
                                              SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_INC,
                                              SHMEM_OP_ATOMIC_SET, SHMEM_OP_ATOMIC_AND,
                                              SHMEM_OP_ATOMIC_OR,  SHMEM_OP_ATOMIC_XOR};
        shmem_op_type_t op = (cfg_op_ != SHMEM_OP_ANY && rng_.chance(80))
                                 ? cfg_op_
                                 : all[rng_.below(8)];
        size_t n = 1 + (size_t)(rng_.chance(70) ? 0 : rng_.below(4));
        uint64_t kind = rng_.below(10);
        if (kind < 5)
            push_words(w_, mw_, uw_, kW, op, n);
        else if (kind < 8)
            push_words(v_, mv_, uv_, kV, op, n);
        else
            push_bytes(op);
    }

    template <typename T>
    void push_words(T *sym, T *model, Use *uses, int nwords, shmem_op_type_t op, size_t n)
    {
        int i = (int)rng_.below((uint64_t)(nwords - (int)n + 1));
        Use want = use_of(op);
        for (size_t k = 0; k < n; k++)
            if (!compatible(uses[i + k], want))
                return; // the result would depend on the order: not this one
        T src[4], keep[4];
        for (size_t k = 0; k < n; k++) {
            uint64_t x = rng_.next();
            // AND keeps most bits so words do not all collapse to 0
            src[k] = op == SHMEM_OP_ATOMIC_AND ? (T)(x | (x >> 3) | (x >> 9)) : (T)x;
            keep[k] = src[k];
        }
        size_t goff = 0;
        if (op == SHMEM_OP_GET && !get_room(n * sizeof(T), &goff))
            return;
        if (rng_.chance(30))
            sync();
        uint64_t cost = (op == SHMEM_OP_PUT || op == SHMEM_OP_GET) ? 1 : n;
        what_ = "push of op " + std::to_string((int)op) + ", " + std::to_string(n) + " x " +
                std::to_string(sizeof(T)) + " bytes at word " + std::to_string(i);
        T *dst = sym + i;
        T *gdst = reinterpret_cast<T *>(&gbuf_[goff]);
        const T *s = op == SHMEM_OP_ATOMIC_INC ? nullptr : src;
        // the inline push (shmemq/queue_inline.h) or the library's own
        bool lib = rng_.chance(25);
        what_ += lib ? " (library call)" : " (inline)";
        rw_ = op == SHMEM_OP_PUT || op == SHMEM_OP_GET;
        T *d = op == SHMEM_OP_GET ? gdst : dst;
        const T *sr = op == SHMEM_OP_GET ? dst : s;
        int rc;
        if (sizeof(T) == 8)
            rc = lib ? pshmem_int64_queue_comm_push(q_, (int64_t *)d, (const int64_t *)sr, n, pe_, op)
                     : shmem_int64_queue_comm_push(q_, (int64_t *)d, (const int64_t *)sr, n, pe_, op);
        else
            rc = lib ? pshmem_int32_queue_comm_push(q_, (int32_t *)d, (const int32_t *)sr, n, pe_, op)
                     : shmem_int32_queue_comm_push(q_, (int32_t *)d, (const int32_t *)sr, n, pe_, op);
        if (cfg_op_ != SHMEM_OP_ANY && op != cfg_op_) {
            ASSERT_EQ(rc, SHMEM_QUEUE_ERR_TYPE) << "op " << op << ": " << where();
            n_err_++;
            if (op == SHMEM_OP_GET)
                goff_ = goff;
            return;
        }
        bool accepted = false;
        check_push(rc, cost, &accepted);
        if (!accepted) {
            if (op == SHMEM_OP_GET)
                goff_ = goff;
            return;
        }
        std::memset(src, 0x5A, sizeof src); // the push copied its operands
        if (op == SHMEM_OP_GET) {
            PendingGet g;
            g.off = goff;
            g.len = n * sizeof(T);
            g.want.resize(g.len);
            std::memcpy(g.want.data(), model + i, g.len);
            gets_.push_back(g);
        }
        for (size_t k = 0; k < n; k++) {
            uses[i + k] = want;
            if (op != SHMEM_OP_GET)
                model[i + k] = apply<T>(op, model[i + k], keep[k]);
        }
    }

    void push_bytes(shmem_op_type_t op)
    {
        if (op != SHMEM_OP_PUT && op != SHMEM_OP_GET)
            op = rng_.chance(50) ? SHMEM_OP_PUT : SHMEM_OP_GET;
        size_t len = 1 + (size_t)rng_.below(rng_.chance(80) ? 24 : 200);
        int i = (int)rng_.below((uint64_t)(kB - (int)len + 1));
        Use want = use_of(op);
        for (size_t k = 0; k < len; k++)
            if (!compatible(ub8_[i + k], want))
                return;
        std::vector<unsigned char> src(len);
        for (size_t k = 0; k < len; k++)
            src[k] = (unsigned char)rng_.next();
        size_t goff = 0;
        if (op == SHMEM_OP_GET && !get_room(len, &goff))
            return;
        if (rng_.chance(30))
            sync();
        what_ = "pushmem of op " + std::to_string((int)op) + ", " + std::to_string(len) +
                " bytes at byte " + std::to_string(i);
        rw_ = true;
        int rc = op == SHMEM_OP_GET ? shmem_queue_comm_pushmem(q_, &gbuf_[goff], b_ + i, len, pe_, op)
                                    : shmem_queue_comm_pushmem(q_, b_ + i, src.data(), len, pe_, op);
        if (cfg_op_ != SHMEM_OP_ANY && op != cfg_op_) {
            ASSERT_EQ(rc, SHMEM_QUEUE_ERR_TYPE) << "pushmem op " << op << ": " << where();
            n_err_++;
            if (op == SHMEM_OP_GET)
                goff_ = goff;
            return;
        }
        bool accepted = false;
        check_push(rc, 1, &accepted);
        if (!accepted) {
            if (op == SHMEM_OP_GET)
                goff_ = goff;
            return;
        }
        if (op == SHMEM_OP_GET) {
            PendingGet g;
            g.off = goff;
            g.len = len;
            g.want.assign(mb_ + i, mb_ + i + len);
            gets_.push_back(g);
        } else {
            std::memcpy(mb_ + i, src.data(), len);
            std::memset(src.data(), 0x3C, len); // the push copied the payload
        }
        for (size_t k = 0; k < len; k++)
            ub8_[i + k] = want;
    }

    // Bad arguments: an error, and nothing queued (the outstanding count is unchanged).
    void bad_push()
    {
        pick((size_t)rng_.below(t_.size()));
        sync();
        int64_t one = 1;
        int n = shmem_n_pes();
        uint64_t what = rng_.below(5);
        int rc;
        int want = SHMEM_QUEUE_ERR_ARG;
        switch (what) {
        case 0: rc = shmem_int64_queue_comm_push(q_, &w_[0], &one, 1, n, SHMEM_OP_ATOMIC_ADD); break;
        case 1: rc = shmem_int64_queue_comm_push(q_, &w_[0], &one, 1, -1, SHMEM_OP_PUT); break;
        case 2: rc = shmem_int64_queue_comm_push(q_, &w_[0], &one, 1, pe_, SHMEM_OP_ANY); break;
        case 3: {
            int64_t local = 0; // not symmetric
            rc = shmem_int64_queue_comm_push(q_, &local, &one, 1, pe_, SHMEM_OP_ATOMIC_ADD);
            want = SHMEM_QUEUE_ERR_ADDR;
            break;
        }
        default:
            rc = shmem_int64_queue_comm_push(q_, &w_[0], &one, 0, pe_, SHMEM_OP_ATOMIC_ADD);
            want = 0; // nelems 0: a no-op once handle, op, type and PE checked out
            break;
        }
        bool typed_away = cfg_op_ != SHMEM_OP_ANY &&
                          ((what == 0 || what == 3 || what == 4) ? cfg_op_ != SHMEM_OP_ATOMIC_ADD
                           : what == 1                           ? cfg_op_ != SHMEM_OP_PUT
                                                                 : false);
        if (typed_away) // the op/queue mismatch is found first
            want = SHMEM_QUEUE_ERR_TYPE;
        EXPECT_EQ(rc, want) << "bad push " << what << ": " << where();
        n_err_ += want != 0;
        size_t s = 0;
        ASSERT_EQ(shmem_query_size(q_, &s), 0);
        ASSERT_LE(s, ub_) << where();
        ub_ = s;
        synced_ = true;
    }

    // query_size / query_attr: exact, never above the model's bound.
    void sync()
    {
        size_t s = 0;
        ASSERT_EQ(shmem_query_size(q_, &s), 0);
        ASSERT_LE(s, ub_) << "more outstanding than pushed: " << where();
        ub_ = s;
        synced_ = true;
    }
    void query()
    {
        sync();
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q_, &a), 0);
        EXPECT_EQ(a.outstanding_elems, ub_) << where();
        EXPECT_EQ(a.available_elems, max_ - ub_) << where();
    }

    void progress()
    {
        int p = shmem_queue_progress(q_);
        ASSERT_GE(p, 0) << where();
        ASSERT_LE((uint64_t)p, ub_) << where();
        if (last_full_) {
            ASSERT_LT((uint64_t)p, max_) << "progress on a full queue made no room: " << where();
        }
        ub_ = (uint64_t)p;
        synced_ = true;
        last_full_ = false;
    }

    void flush(bool verify)
    {
        ASSERT_EQ(shmem_queue_local_flush(q_), 0) << where();
        size_t s = 1;
        ASSERT_EQ(shmem_query_size(q_, &s), 0);
        ASSERT_EQ(s, 0u) << "outstanding after a flush: " << where();
        ub_ = 0;
        synced_ = true;
        last_full_ = false;
        n_flush_++;
        epoch_done(verify);
    }

    // Destroy completes what is outstanding; the next queue gets another config.
    void recreate()
    {
        ASSERT_EQ(shmem_queue_comm_destroy(q_), 0) << where();
        stale_ = q_;
        q_ = nullptr;
        epoch_done(rng_.chance(50));
        create();
    }

    // A destroyed handle: STATE from every routine, nothing done.
    void stale()
    {
        if (stale_ == nullptr)
            return;
        int64_t one = 1;
        size_t s;
        EXPECT_EQ(shmem_int64_queue_comm_push(stale_, &w_[0], &one, 1, pe_, SHMEM_OP_ATOMIC_ADD),
                  SHMEM_QUEUE_ERR_STATE) << where();
        EXPECT_EQ(shmem_queue_comm_pushmem(stale_, b_, &one, 1, pe_, SHMEM_OP_PUT), SHMEM_QUEUE_ERR_STATE);
        EXPECT_EQ(shmem_queue_progress(stale_), SHMEM_QUEUE_ERR_STATE);
        EXPECT_EQ(shmem_queue_local_flush(stale_), SHMEM_QUEUE_ERR_STATE);
        EXPECT_EQ(shmem_query_size(stale_, &s), SHMEM_QUEUE_ERR_STATE);
        EXPECT_EQ(shmem_queue_comm_destroy(stale_), SHMEM_QUEUE_ERR_STATE);
    }

    Rng rng_;
    uint64_t rng_seed_ = 0;
    struct Target {
        int pe;
        int64_t mw[kW];
        int32_t mv[kV];
        unsigned char mb[kB];
        Use uw[kW], uv[kV], ub8[kB];
    };
    int pe_ = 0, steps_, step_ = 0;
    std::vector<Target> t_;
    shmem_queue_t q_ = nullptr, stale_ = nullptr;
    shmem_op_type_t cfg_op_ = SHMEM_OP_ANY;
    const char *path_ = "rma";
    uint64_t max_ = 0, ub_ = 0;
    std::string what_; // the push being checked
    uint64_t n_ok_ = 0, n_full_ = 0, n_err_ = 0, n_flush_ = 0, n_queues_ = 0;
    bool rw_ = false;  // it is a PUT or GET
    bool synced_ = true, last_full_ = false;
    int64_t *wbase_, *w_;
    int32_t *vbase_, *v_;
    unsigned char *bbase_, *b_;
    int64_t *mw_;
    int32_t *mv_;
    unsigned char *mb_;
    Use *uw_, *uv_, *ub8_;
    std::vector<unsigned char> gbuf_;
    std::vector<PendingGet> gets_;
    size_t goff_ = 0;

  public:
    void set_seed(uint64_t s) { rng_seed_ = s; }
};

void run_comm_model(const std::vector<int> &targets, uint64_t salt, uint64_t steps_default)
{
    uint64_t seed = model::base_seed() + salt;
    int steps = (int)model::model_iters(steps_default);
    CommModel m(model::stream(seed, (uint64_t)shmem_my_pe()).next(), targets, steps);
    m.set_seed(seed);
    m.run();
}

} // namespace


TEST(ModelCommQueue, SelfTarget) { run_comm_model({shmem_my_pe()}, 1, 3000); }

TEST(ModelCommQueue, RightNeighbour) { run_comm_model({right_neighbor()}, 2, 3000); }

// One queue to every PE at once (flushes of many targets, the single-target detection
// switching on and off). Fewer steps: off the node every flush and check waits for each
// target to enter MPI, ~8 ms a step with 4 PEs on 2 cores.
TEST(ModelCommQueue, AllTargets)
{
    std::vector<int> all;
    for (int p = 0; p < shmem_n_pes(); p++)
        all.push_back(p);
    run_comm_model(all, 4, 1000);
}
