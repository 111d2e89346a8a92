# robust: pshmem.h, MPI interop, thread-shared locks, back-off, faults (issue 13).

# <pshmem.h> is complete: test/pshmem_all takes the address of every profiling twin
# through the header alone, compiled so that an undeclared routine is an error;
# test/robust_pshmem.sh checks with nm that it references every twin libshmemq exports.
# A .sh test: run by the shell (TEST_EXTENSIONS in Makefile.am).
# (noinst, not check_PROGRAMS: every check program is run under mpiexec by run-mpi.sh.)
EXTRA_DIST += test/robust_pshmem.sh
noinst_PROGRAMS += test/pshmem_all
test_pshmem_all_SOURCES = test/programs/pshmem_all.c
test_pshmem_all_CFLAGS = $(AM_CFLAGS) -Werror=implicit-function-declaration
test_pshmem_all_LDADD = $(SHMEMQ_LIBS)
test_pshmem_all_LDFLAGS = $(NOINSTALL_FLAGS)
if BUILD_TESTS
SCRIPT_TESTS += test/robust_pshmem.sh
test/robust_pshmem.log: test/pshmem_all$(EXEEXT)
endif

# test_robust: its own main calls MPI_Init_thread before shmem_init (the Open MPI 1-PE
# data-segment window), then threads sharing one lock and heap exhaustion.
if BUILD_TESTS
check_PROGRAMS += test/test_robust
test_test_robust_SOURCES = $(TEST_COMMON_SOURCES) $(TEST_MAIN_SOURCES) test/test_robust.cc
test_test_robust_CPPFLAGS = $(TEST_INCLUDES) -DSHMEMQ_TEST_PROGRAM_INITS_MPI
test_test_robust_LDADD = $(TEST_LIBS) -lpthread
test_test_robust_LDFLAGS = $(NOINSTALL_FLAGS)
endif

# Faults: shmem_global_exit by one PE while the others flush queues ends the job with
# its status (test/robust_global_exit.sh runs test/global_exit through run-mpi.sh).
EXTRA_DIST += test/robust_global_exit.sh
noinst_PROGRAMS += test/global_exit
test_global_exit_SOURCES = test/programs/global_exit.c
test_global_exit_LDADD = $(SHMEMQ_LIBS)
test_global_exit_LDFLAGS = $(NOINSTALL_FLAGS)
if BUILD_TESTS
SCRIPT_TESTS += test/robust_global_exit.sh
test/robust_global_exit.log: test/global_exit$(EXEEXT)
endif

# Faults: a failing MPI call inside a queue routine (injected by the test binary's own
# MPI_Ialltoall/MPI_Accumulate/MPI_Put over PMPI) returns SHMEM_QUEUE_ERR_MPI.
if BUILD_TESTS
check_PROGRAMS += test/test_fault
test_test_fault_SOURCES = $(TEST_COMMON_SOURCES) $(TEST_MAIN_SOURCES) test/test_fault.cc
test_test_fault_CPPFLAGS = $(TEST_INCLUDES) -DSHMEMQ_TEST_ENV='"SHMEMQ_NODE_PES=1 SHMEM_DEBUG=1"'
test_test_fault_LDADD = $(TEST_LIBS)
test_test_fault_LDFLAGS = $(NOINSTALL_FLAGS)
endif

# test/run_bounded.sh: run and verdict, sourced by test/promises.sh and test/agent.sh
EXTRA_DIST += test/run_bounded.sh

# test/promises.sh: misuse whose outcome is an exit, a message or no hang (issue 20):
# finalize against a peer's data-queue destroy or global flush, refusals said once,
# SHMEM_DEBUG ending the job, heap exhaustion said. A .sh test (TEST_EXTENSIONS).
noinst_PROGRAMS += test/promises
test_promises_SOURCES = test/promises.c test/misuse_queue.h
test_promises_LDADD = $(SHMEMQ_LIBS)
test_promises_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += test/promises.sh
if BUILD_TESTS
SCRIPT_TESTS += test/promises.sh
test/promises.log: test/promises$(EXEEXT)
endif

# test/agent.sh: the node agent's start (where the policy says), stop (finalize with it
# running) and failure (MPI below THREAD_MULTIPLE: said, no hang). A .sh test.
noinst_PROGRAMS += test/agent
test_agent_SOURCES = test/agent.c
test_agent_LDADD = $(SHMEMQ_LIBS)
test_agent_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += test/agent.sh
if BUILD_TESTS
SCRIPT_TESTS += test/agent.sh
test/agent.log: test/agent$(EXEEXT) shmemq_info$(EXEEXT)
endif
