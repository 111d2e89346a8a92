// test_offnode_common.h: PEs of other nodes by default (issue 21): the AM transport and
// one atomic domain per node (src/mpi_rma/xport_am.h). What the four test_offnode_*.cc
// files share; each is one concern: test_offnode_rma.cc (puts, gets, strided transfers,
// AMOs and a lock), test_offnode_queue_amo.cc (queued atomics), test_offnode_queue_rma.cc
// (queued puts and gets), test_offnode_standdown.cc (the node agent's stand-down).
//
// Every case runs with the library's default settings in test_offnode_<concern>_default
// (run-mpi.sh runs it at 1/2/4 PEs, every PE its own node, and two nodes of two). Atomics
// that node peers apply with CPU atomics and PEs of other nodes send as messages meet on
// the same words with exact totals; a target that computes, sits in MPI_Barrier or spins
// on plain loads still sees every operation complete.
//
// The spinning cases need someone on the target's node to serve while the target spins:
// the node's progress agent. shmemq takes the AM transport only when every node has one
// (shmemi_am_on()), and a target with the progress thread of its own completes MPI RMA
// too; where neither holds (before the agent is on by default) the target waits with
// shmem_wait_until instead of plain loads, which still checks put + fence + flag order.
// test_offnode_<concern>_async builds the same cases with SHMEMQ_ASYNC_PROGRESS=1
// (mpi_main.cc sets it), where the spinning target never calls the library.
//
// A waiting PE gives up after kDeadline seconds and fails instead of hanging.
#ifndef SHMEMQ_TEST_OFFNODE_COMMON_H
#define SHMEMQ_TEST_OFFNODE_COMMON_H

#include <gtest/gtest.h>
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <cstdint>

#include "test_util.h"

extern "C" int shmemi_am_on(void);
extern "C" int shmemi_agent_running(void);

namespace {

const double kDeadline = 60.0;

template <typename T> bool spin_until(const T *p, T want)
{
    return spin_until_for(p, want, kDeadline);
}

// Can a PE spin on plain loads while PEs of other nodes put and set flags into it? Yes
// when the job is one node, when the AM transport is on (every node has its agent), or
// when every PE runs the progress thread (MPI RMA then completes without the target).
bool spin_servable()
{
    int one_node = shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmem_n_pes();
    int mine = shmemi_agent_running(), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return one_node || shmemi_am_on() || all;
}

} // namespace

#endif
