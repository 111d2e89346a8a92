// test_model_data.cc: a randomised data-queue test checked against a reference model
// (issue 13; the comm-queue models are in test_model.cc, the same binary).
//
// A data queue over SHMEM_TEAM_WORLD (1 PE: the single-PE case) with a random config,
// driven by random pushes, pops, queries, global flushes, background flushes and
// destroy/re-create. Every PE replays every PE's random stream, so each knows all
// outgoing and incoming rooms and predicts FULL, EMPTY, OVERFLOW (and on which flush),
// DATALOSS at destroy, the query sizes and every popped element. Background flushes
// (shmem_queue_data_progress, called a different number of times on each PE) run in
// phases where the model proves that nothing can overflow, so the outcome stays
// deterministic. The seed is fixed (SHMEMQ_MODEL_SEED overrides it, SHMEMQ_MODEL_ITERS
// sets the number of steps); every failure message carries the seed and the step.
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

// ---------------------------------------------------------------- data queues

// Byte k of element `seq` sent from s to d.
unsigned char elem_byte(int s, int d, uint64_t seq, size_t k)
{
    uint64_t h = ((uint64_t)s * 0x9E3779B1u) ^ ((uint64_t)d << 40) ^ (seq * 0x100000001B3ULL);
    h ^= h >> 29;
    return (unsigned char)((h >> ((k % 8) * 8)) + k * 31);
}

struct Elem {
    int src;
    uint64_t seq;
};

class DataModel {
  public:
    DataModel(uint64_t seed, int steps)
        : seed_(seed), g_(model::stream(seed, 0xFFFF)), steps_(steps), n_(shmem_n_pes()),
          me_(shmem_my_pe())
    {
        for (int p = 0; p < n_; p++)
            pe_rng_.push_back(model::stream(seed, (uint64_t)p));
    }

    void run()
    {
        create();
        // Collective steps stay in step on every PE after a failure (the model is updated
        // before the call it checks); the PEs agree to stop every 50 steps.
        for (step_ = 0; step_ < steps_ && (step_ % 50 != 0 || !any_failure()); step_++) {
            SCOPED_TRACE(where());
            uint64_t r = g_.below(100);
            if (r < 35)
                pushes(false);
            else if (r < 55)
                pops();
            else if (r < 63)
                query();
            else if (r < 85)
                flush();
            else if (r < 92)
                progress_phase();
            else
                recreate();
        }
        SCOPED_TRACE(where());
        if (!any_failure())
            drain();
        if (q_ != nullptr) {
            int rc = shmem_queue_data_destroy(&q_, SHMEM_TEAM_WORLD);
            EXPECT_EQ(rc, any_failure() ? rc : 0) << where();
        }
        unsetenv("SHMEMQ_DATAQ_XFER");
        unsetenv("SHMEMQ_DATAQ_CHUNK");
        if (me_ == 0)
            std::printf("[  MODEL   ] seed %llu: %d steps on PE 0: %llu elements pushed, %llu FULL, "
                        "%llu pops, %llu EMPTY, %llu flushes (%llu OVERFLOW), %llu progress calls, "
                        "%llu queues\n",
                        (unsigned long long)seed_, step_, (unsigned long long)c_[0],
                        (unsigned long long)c_[1], (unsigned long long)c_[2], (unsigned long long)c_[3],
                        (unsigned long long)c_[4], (unsigned long long)c_[5],
                        (unsigned long long)c_[6], (unsigned long long)c_[7]);
    }

  private:
    // Collective calls follow the same global stream on every PE, so every PE must leave
    // the loop at the same step: agree on failures.
    bool any_failure()
    {
        int mine = ::testing::Test::HasFailure() ? 1 : 0, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return any != 0;
    }

    std::string where() const
    {
        return "seed " + std::to_string(seed_) + " (SHMEMQ_MODEL_SEED), step " +
               std::to_string(step_) + ", PE " + std::to_string(me_) + " of " +
               std::to_string(n_) + ", elem " + std::to_string(elem_) + " room " +
               std::to_string(room_) + " elements, xfer " + xfer_;
    }

    std::deque<Elem> &out(int s, int d) { return out_[(size_t)s * n_ + d]; }
    std::deque<Elem> &in(int d, int s) { return in_[(size_t)d * n_ + s]; }

    void create()
    {
        static const size_t elems[] = {1, 3, 4, 8, 12, 16};
        static const size_t rooms[] = {1, 2, 3, 5, 8, 17, 40};
        static const char *xfers[] = {"v", "v", "c", "rounds"};
        elem_ = elems[g_.below(6)];
        room_ = rooms[g_.below(7)];
        xfer_ = xfers[g_.below(4)];
        setenv("SHMEMQ_DATAQ_XFER", xfer_, 1);
        setenv("SHMEMQ_DATAQ_CHUNK", std::to_string(1 + g_.below(64)).c_str(), 1);
        shmem_queue_config_t c;
        std::memset(&c, 0, sizeof c);
        c.qtype = SHMEM_QUEUE_DATA;
        c.data_elem_size = elem_;
        c.max_bytes = room_ * elem_ + g_.below(elem_); // rounded down to whole elements
        bool shared = g_.chance(25);
        if (shared && thread_multiple())
            c.thread_model = SHMEM_QUEUE_SHARED;
        ASSERT_EQ(shmem_queue_data_create(&q_, &c, SHMEM_TEAM_WORLD), 0) << where();
        c_[7]++;
        out_.assign((size_t)n_ * n_, std::deque<Elem>());
        in_.assign((size_t)n_ * n_, std::deque<Elem>());
        seq_.assign((size_t)n_ * n_, 0);
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q_, &a), 0);
        EXPECT_EQ(a.outstanding_elems, 0u);
        EXPECT_EQ(a.available_elems, (uint64_t)room_ * n_) << where();
    }

    // Every PE's pushes of this step (each PE's own stream); only mine are real calls.
    // In a progress phase a push must keep out + in <= room for its pair, so no flush
    // of the phase can overflow, whenever it runs.
    void pushes(bool phase)
    {
        std::vector<unsigned char> buf;
        for (int p = 0; p < n_; p++) {
            Rng &r = pe_rng_[p];
            int k = (int)r.below(8);
            for (int i = 0; i < k; i++) {
                int d = (int)r.below((uint64_t)n_);
                uint64_t pick = r.below(100);
                size_t ne = pick < 4 ? 0 : pick < 8 ? room_ + 1 + r.below(3)
                                         : 1 + (size_t)r.below(pick < 70 ? 2 : room_);
                bool bad_pe = !phase && r.chance(3);
                int rc_want;
                if (bad_pe)
                    rc_want = SHMEM_QUEUE_ERR_ARG;
                else if (ne == 0)
                    rc_want = 0;
                else if (ne > room_)
                    rc_want = SHMEM_QUEUE_ERR_ARG;
                else if (out(p, d).size() + ne > room_)
                    rc_want = SHMEM_QUEUE_ERR_FULL;
                else
                    rc_want = 0;
                if (phase && ne > 0 && out(p, d).size() + in(d, p).size() + ne > room_)
                    continue; // could overflow a flush of the phase: not in this phase
                if (p == me_) {
                    buf.assign(ne * elem_ + 1, 0);
                    for (size_t e = 0; e < ne; e++)
                        for (size_t b = 0; b < elem_; b++)
                            buf[e * elem_ + b] = elem_byte(p, d, seq_[(size_t)p * n_ + d] + e, b);
                    int pe = bad_pe ? (r.chance(50) ? n_ : -1) : d;
                    int rc = (r.chance(20) ? (shmem_queue_data_push)(q_, buf.data(), ne, pe)
                                           : shmem_queue_data_push(q_, buf.data(), ne, pe));
                    ASSERT_EQ(rc, rc_want) << "push of " << ne << " to " << pe << ": " << where();
                    c_[0] += rc == 0 ? ne : 0;
                    c_[1] += rc == SHMEM_QUEUE_ERR_FULL;
                } else if (bad_pe) {
                    r.chance(50); // keep the stream in step with PE p's own
                    r.chance(20);
                } else {
                    r.chance(20);
                }
                if (rc_want == 0 && !bad_pe)
                    for (size_t e = 0; e < ne; e++)
                        out(p, d).push_back({p, seq_[(size_t)p * n_ + d]++});
            }
        }
    }

    void pops()
    {
        std::vector<unsigned char> buf;
        for (int p = 0; p < n_; p++) {
            Rng &r = pe_rng_[p];
            int k = (int)r.below(8);
            for (int i = 0; i < k; i++) {
                int s = (int)r.below((uint64_t)n_ + 1);
                if (s == n_)
                    s = SHMEM_QUEUE_ANY_PE;
                size_t ne = 1 + (size_t)r.below(r.chance(60) ? 2 : room_ * 2);
                size_t avail = 0;
                if (s == SHMEM_QUEUE_ANY_PE)
                    for (int x = 0; x < n_; x++)
                        avail += in(p, x).size();
                else
                    avail = in(p, s).size();
                int rc_want = avail < ne ? SHMEM_QUEUE_ERR_EMPTY : 0;
                std::vector<Elem> got;
                if (rc_want == 0) {
                    for (int x = (s == SHMEM_QUEUE_ANY_PE ? 0 : s); got.size() < ne; x++)
                        while (got.size() < ne && !in(p, x).empty()) {
                            got.push_back(in(p, x).front());
                            in(p, x).pop_front();
                        }
                }
                bool lib = r.chance(20);
                if (p != me_)
                    continue;
                buf.assign(ne * elem_, 0xEE);
                int rc = lib ? (shmem_queue_data_pop)(q_, buf.data(), ne, s)
                             : shmem_queue_data_pop(q_, buf.data(), ne, s);
                c_[2]++;
                c_[3] += rc == SHMEM_QUEUE_ERR_EMPTY;
                ASSERT_EQ(rc, rc_want) << "pop of " << ne << " from " << s << " (" << avail
                                       << " there): " << where();
                if (rc != 0) {
                    for (unsigned char c : buf)
                        ASSERT_EQ(c, 0xEE) << "a failed pop wrote: " << where();
                    continue;
                }
                for (size_t e = 0; e < ne; e++)
                    for (size_t b = 0; b < elem_; b++)
                        ASSERT_EQ(buf[e * elem_ + b], elem_byte(got[e].src, me_, got[e].seq, b))
                            << "element " << e << " of a pop of " << ne << " from " << s
                            << " (expected source " << got[e].src << " seq " << got[e].seq
                            << "), byte " << b << ": " << where();
            }
        }
    }

    void query()
    {
        int pe = (int)g_.below((uint64_t)n_ + 1);
        if (pe == n_)
            pe = SHMEM_QUEUE_ANY_PE;
        size_t win = 0, wout = 0, gin = 1, gout = 1;
        for (int x = 0; x < n_; x++)
            if (pe == SHMEM_QUEUE_ANY_PE || pe == x) {
                win += in(me_, x).size() * elem_;
                wout += out(me_, x).size() * elem_;
            }
        ASSERT_EQ(shmem_query_data_size(q_, &gin, &gout, pe), 0) << where();
        EXPECT_EQ(gin, win) << "incoming from " << pe << ": " << where();
        EXPECT_EQ(gout, wout) << "outgoing to " << pe << ": " << where();
        uint64_t outst = 0, avail = 0;
        for (int x = 0; x < n_; x++) {
            outst += out(me_, x).size();
            avail += room_ - out(me_, x).size();
        }
        shmem_queue_attr_t a;
        ASSERT_EQ(shmem_query_attr(q_, &a), 0);
        EXPECT_EQ(a.outstanding_elems, outst) << where();
        EXPECT_EQ(a.available_elems, avail) << where();
        size_t sz = 0;
        ASSERT_EQ(shmem_query_size(q_, &sz), 0);
        EXPECT_EQ(sz, outst) << where();
    }

    // The model's flush: each pair moves what the receiver's room has free for it.
    int model_flush()
    {
        bool over = false;
        for (int s = 0; s < n_; s++)
            for (int d = 0; d < n_; d++) {
                std::deque<Elem> &o = out(s, d), &i = in(d, s);
                size_t move = std::min(o.size(), room_ - i.size());
                for (size_t k = 0; k < move; k++) {
                    i.push_back(o.front());
                    o.pop_front();
                }
                over |= !o.empty();
            }
        return over ? SHMEM_QUEUE_ERR_OVERFLOW : 0;
    }

    void flush()
    {
        int want = model_flush();
        int rc = shmem_queue_global_flush(q_);
        ASSERT_EQ(rc, want) << where();
        c_[4]++;
        c_[5] += rc == SHMEM_QUEUE_ERR_OVERFLOW;
    }

    // Background flushes, started and advanced a different number of times on each PE,
    // while pushes go on; the global flush at the end completes them.
    void progress_phase()
    {
        for (int s = 0; s < n_; s++)
            for (int d = 0; d < n_; d++)
                if (out(s, d).size() + in(d, s).size() > room_)
                    return flush(); // could overflow: an ordinary flush instead
        int rounds = 1 + (int)g_.below(4);
        for (int k = 0; k < rounds; k++) {
            int calls = (int)pe_rng_[me_].below(4);
            for (int p = 0; p < n_; p++)
                if (p != me_)
                    pe_rng_[p].below(4);
            for (int c = 0; c < calls; c++, c_[6]++)
                EXPECT_EQ(shmem_queue_data_progress(q_, SHMEM_TEAM_WORLD), 0) << where();
            pushes(true);
        }
        flush(); // every PE, failed or not: it is collective
    }

    void recreate()
    {
        bool loss = false;
        for (int x = 0; x < n_; x++)
            loss |= !out(me_, x).empty() || !in(me_, x).empty();
        int rc = shmem_queue_data_destroy(&q_, SHMEM_TEAM_WORLD);
        EXPECT_EQ(rc, loss ? SHMEM_QUEUE_ERR_DATALOSS : 0) << where();
        EXPECT_EQ(q_, nullptr);
        q_ = nullptr;
        size_t a, b;
        EXPECT_EQ(shmem_query_data_size(q_, &a, &b, 0), SHMEM_QUEUE_ERR_ARG) << where();
        create();
    }

    // Everything pushed arrives: flush and pop until the model is empty everywhere.
    void drain()
    {
        for (int round = 0; round < 64; round++) {
            bool left = false;
            for (size_t i = 0; i < out_.size(); i++)
                left |= !out_[i].empty() || !in_[i].empty();
            if (!left)
                return;
            flush();
            for (int s = 0; s < n_ && !::testing::Test::HasFailure(); s++) {
                size_t ne = in(me_, s).size();
                if (ne == 0)
                    continue;
                std::vector<unsigned char> buf(ne * elem_);
                ASSERT_EQ(shmem_queue_data_pop(q_, buf.data(), ne, s), 0) << where();
                for (size_t e = 0; e < ne; e++)
                    for (size_t b = 0; b < elem_; b++)
                        ASSERT_EQ(buf[e * elem_ + b], elem_byte(s, me_, in(me_, s)[e].seq, b)) << where();
            }
            for (int p = 0; p < n_; p++)
                for (int s = 0; s < n_; s++)
                    in(p, s).clear();
            if (any_failure())
                return;
        }
        FAIL() << "not drained after 64 flushes: " << where();
    }

    uint64_t seed_;
    Rng g_; // the global stream: step kinds and configs, the same on every PE
    std::vector<Rng> pe_rng_;
    int steps_, step_ = 0, n_, me_;
    shmem_queue_t q_ = nullptr;
    size_t elem_ = 1, room_ = 1;
    const char *xfer_ = "v";
    std::vector<std::deque<Elem>> out_, in_; // [s * n + d], [d * n + s]
    std::vector<uint64_t> seq_;              // next sequence number per (s, d)
    uint64_t c_[8] = {0, 0, 0, 0, 0, 0, 0, 0}; // counters for the summary line
};

void run_data_model(uint64_t salt)
{
    DataModel m(model::base_seed() + salt, (int)model::model_iters(1500));
    m.run();
}

} // namespace

// 1 PE: the single-PE case (every push is to itself); 2 and 4 PEs: the exchange.
TEST(ModelDataQueue, World) { run_data_model(3); }
