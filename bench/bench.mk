# bench: the histogram example and the histogram / index-gather benchmarks.
# Benchmarks are never run by make check; see bench/README.md.
noinst_PROGRAMS += examples/histogram bench/histogram bench/indexgather
examples_histogram_SOURCES = examples/histogram.c
examples_histogram_LDADD = $(SHMEMQ_LIBS)
examples_histogram_LDFLAGS = $(NOINSTALL_FLAGS)
bench_histogram_SOURCES = bench/histogram.c bench/histogram_kernels.h bench/bench_util.h
bench_histogram_LDADD = $(SHMEMQ_LIBS)
bench_histogram_LDFLAGS = $(NOINSTALL_FLAGS)
bench_indexgather_SOURCES = bench/indexgather.c bench/indexgather_kernels.h bench/bench_util.h
bench_indexgather_LDADD = $(SHMEMQ_LIBS)
bench_indexgather_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += bench/README.md

# put/get between node peers against a plain shared-memory copy (docs/design.md)
noinst_PROGRAMS += bench/node_copy
bench_node_copy_SOURCES = bench/node_copy.c
bench_node_copy_LDADD = $(SHMEMQ_LIBS)
bench_node_copy_LDFLAGS = $(NOINSTALL_FLAGS)

# team collectives against raw MPI on MPI_COMM_WORLD, 8 B .. 1 MiB (issue 22)
noinst_PROGRAMS += bench/coll
bench_coll_SOURCES = bench/coll.c
bench_coll_LDADD = $(SHMEMQ_LIBS)
bench_coll_LDFLAGS = $(NOINSTALL_FLAGS)

# the node agent's wake-up latency and its cost to a compute-bound PE (issue 21)
noinst_PROGRAMS += bench/agent
bench_agent_SOURCES = bench/agent.c
bench_agent_LDADD = $(SHMEMQ_LIBS)
bench_agent_LDFLAGS = $(NOINSTALL_FLAGS)

# the queues' memory model as CSV for bench/plot and docs/scaling.md (issue 23)
noinst_PROGRAMS += bench/model
bench_model_SOURCES = bench/model.c
bench_model_LDADD = $(SHMEMQ_LIBS)
bench_model_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += bench/run bench/plot bench/scale.sh bench/dataq_exchange.sh

# the queues' dry-run simulator: P virtual PEs in one process, planned by the queues'
# own code (src/queue/dq_plan.h, src/queue/cq_plan.h with -k comm); docs/scaling.md
# "The simulator" (issue 23)
noinst_PROGRAMS += bench/simulate
bench_simulate_SOURCES = bench/simulate.c bench/sim.c bench/sim.h bench/cqsim.c bench/cqsim.h
bench_simulate_LDADD = $(SHMEMQ_LIBS) -lm
bench_simulate_LDFLAGS = $(NOINSTALL_FLAGS)
if BUILD_TESTS
# its counts against real queues' shmemx_queue_usage (and at 16 PEs by test/scale.sh)
check_PROGRAMS += test/test_sim
test_test_sim_SOURCES = $(TEST_COMMON_SOURCES) test/test_sim.cc bench/sim.c bench/sim.h
test_test_sim_CPPFLAGS = $(TEST_INCLUDES)
test_test_sim_LDADD = $(TEST_LIBS)
test_test_sim_LDFLAGS = $(NOINSTALL_FLAGS)
test/scale.log: test/test_sim$(EXEEXT)
# the comm-queue simulator's counts against real comm queues' shmemx_queue_usage
check_PROGRAMS += test/test_cqsim
test_test_cqsim_SOURCES = $(TEST_COMMON_SOURCES) test/test_cqsim.cc bench/cqsim.c bench/cqsim.h \
	bench/sim.c bench/sim.h
test_test_cqsim_CPPFLAGS = $(TEST_INCLUDES)
test_test_cqsim_LDADD = $(TEST_LIBS)
test_test_cqsim_LDFLAGS = $(NOINSTALL_FLAGS)
endif
# LogGP parameters of this machine's MPI (2 ranks) for bench/simulate's time model
noinst_PROGRAMS += bench/loggp
bench_loggp_SOURCES = bench/loggp.c
bench_loggp_LDFLAGS = $(NOINSTALL_FLAGS)
# the exchanges under SimGrid SMPI, against the model (docs/scaling.md, "Cross-check with
# SimGrid"): built and run by bench/smpi/run.sh with smpicc, never by this build
EXTRA_DIST += bench/smpi/run.sh bench/smpi/exchange.c bench/smpi/platform.xml
