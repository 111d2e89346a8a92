// test_commq_common.h: what the tests of the comm queues' data paths share
// (test_commq_putget.cc, test_commq_atomics.cc, test_commq_full.cc, test_commq_iface.cc,
// one binary each): a config shorthand and the CommQueueModes fixture. Each file that
// has TEST_Ps instantiates the fixture itself (Paths/CommQueueModes.<test>/<0..3>).
#ifndef SHMEMQ_TEST_COMMQ_COMMON_H
#define SHMEMQ_TEST_COMMQ_COMMON_H

#include <gtest/gtest.h>
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdlib>
#include "test_util.h"

namespace {

shmem_queue_config_t cfg(shmem_op_type_t op = SHMEM_OP_ANY, uint64_t max = 0,
                         double timeout = SHMEM_QUEUE_MAX_TIMEOUT)
{
    return comm_queue_cfg(op, max, timeout);
}

// Runs a test body once per (path, combine) setting.
struct Mode {
    const char *path;
    const char *combine;
};
const Mode kModes[] = {{"rma", "0"}, {"am", "0"}, {"am", "1"}, {"rma", "1"}};

void set_mode(const Mode &m)
{
    setenv("SHMEMQ_COMM_PATH", m.path, 1);
    setenv("SHMEMQ_COMBINE", m.combine, 1);
}

} // namespace


class CommQueueModes : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override { set_mode(kModes[GetParam()]); }
    void TearDown() override
    {
        unsetenv("SHMEMQ_COMM_PATH");
        unsetenv("SHMEMQ_COMBINE");
    }
};

#endif
