// mpi_main.cc: GoogleTest main for tests run under mpiexec.
// Every rank runs every test; after each test the ranks agree on the outcome, so a
// failure on any rank fails the run. Rank 0 prints the GoogleTest report; other ranks
// print only their own failures.
#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

class MpiAgreement : public ::testing::EmptyTestEventListener {
  public:
    explicit MpiAgreement(int rank) : rank_(rank) {}
    void OnTestEnd(const ::testing::TestInfo &info) override
    {
        int mine = info.result()->Failed() ? 1 : 0, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any && !mine && rank_ == 0)
            std::printf("[  MPI     ] %s.%s failed on another rank (see its output)\n",
                        info.test_suite_name(), info.name());
        failed_ |= any;
    }
    void OnTestPartResult(const ::testing::TestPartResult &r) override
    {
        if (r.failed() && rank_ != 0)
            std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_,
                         r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
    }
    bool failed() const { return failed_ != 0; }

  private:
    int rank_;
    int failed_ = 0;
};

} // namespace

int main(int argc, char **argv)
{
#ifdef SHMEMQ_TEST_ENV
    // A binary built for one setting (e.g. "SHMEMQ_NODE_PES=1 SHMEMQ_ASYNC_PROGRESS=1"):
    // set before shmem_init; a value already in the environment wins.
    {
        std::string all = SHMEMQ_TEST_ENV;
        size_t pos = 0;
        while (pos < all.size()) {
            size_t end = all.find(' ', pos);
            std::string kv = all.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
            size_t eq = kv.find('=');
            if (eq != std::string::npos)
                setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 0);
            pos = end == std::string::npos ? all.size() : end + 1;
        }
    }
#endif
    ::testing::InitGoogleTest(&argc, argv);
#ifdef SHMEMQ_TEST_PROGRAM_INITS_MPI
    // The program owns MPI (test_robust): MPI first, shmem_init_thread on top of it, and
    // MPI_Finalize after shmem_finalize, which leaves an MPI it did not start running.
    int mpi_provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &mpi_provided) != MPI_SUCCESS)
        return 2;
#endif
#ifdef SHMEMQ_TEST_THREAD_SINGLE
    // As most OpenSHMEM programs start: shmem_init, SHMEM_THREAD_SINGLE. The library may
    // then apply incoming work with plain loads and stores where no other thread runs.
    shmem_init();
#else
    int provided = 0;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        std::fprintf(stderr, "shmem_init_thread failed\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
#endif
    int rank = shmem_my_pe();
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (rank != 0)
        delete listeners.Release(listeners.default_result_printer());
    auto *agreement = new MpiAgreement(rank);
    listeners.Append(agreement);
    int rc = RUN_ALL_TESTS();
    int mine = (rc != 0 || agreement->failed()) ? 1 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    shmem_finalize();
#ifdef SHMEMQ_TEST_PROGRAM_INITS_MPI
    MPI_Finalize();
#endif
    return any;
}
