# team: teams, team and active-set collectives, scans, MPI interoperability.
libshmemq_la_SOURCES += \
	src/mpi_rma/team.c \
	src/mpi_rma/coll_impl.h \
	src/mpi_rma/coll.c \
	src/mpi_rma/coll_node.h \
	src/mpi_rma/coll_node.c \
	src/mpi_rma/coll_hier.h \
	src/mpi_rma/coll_hier.c \
	src/mpi_rma/coll_hier_engines.c \
	src/mpi_rma/coll_legacy.c

if BUILD_TESTS
check_PROGRAMS += test/test_team test/test_coll test/test_coll_split test/test_coll_hier \
	test/test_coll_legacy
test_test_team_SOURCES = $(TEST_COMMON_SOURCES) test/test_team.cc
test_test_team_CPPFLAGS = $(TEST_INCLUDES)
test_test_team_LDADD = $(TEST_LIBS)
test_test_team_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_coll_SOURCES = $(TEST_COMMON_SOURCES) test/test_coll.cc test/test_coll_generic.c \
	test/test_coll_types.c test/test_coll_common.h
test_test_coll_CPPFLAGS = $(TEST_INCLUDES)
test_test_coll_LDADD = $(TEST_LIBS)
test_test_coll_LDFLAGS = $(NOINSTALL_FLAGS)
# The same tests with every MPI call limited to 3 elements/bytes: exercises the
# large-count splitting paths with small data.
test_test_coll_split_SOURCES = $(TEST_COMMON_SOURCES) test/test_coll.cc test/test_coll_generic.c \
	test/test_coll_types.c test/test_coll_common.h
test_test_coll_split_CPPFLAGS = $(TEST_INCLUDES) -DSHMEMQ_TEST_SPLIT=3
test_test_coll_split_LDADD = $(TEST_LIBS)
test_test_coll_split_LDFLAGS = $(NOINSTALL_FLAGS)
# The same tests with the hierarchical collectives forced on (SHMEMQ_COLL_HIER=1) for
# every team that spans nodes, plus the hierarchical cases (teams under each setting).
test_test_coll_hier_SOURCES = $(TEST_COMMON_SOURCES) test/test_coll.cc test/test_coll_generic.c \
	test/test_coll_types.c test/test_coll_hier.cc test/test_coll_common.h
test_test_coll_hier_CPPFLAGS = $(TEST_INCLUDES) -DSHMEMQ_TEST_HIER=1
test_test_coll_hier_LDADD = $(TEST_LIBS)
test_test_coll_hier_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_coll_legacy_SOURCES = $(TEST_COMMON_SOURCES) test/test_coll_legacy.cc
test_test_coll_legacy_CPPFLAGS = $(TEST_INCLUDES)
test_test_coll_legacy_LDADD = $(TEST_LIBS)
test_test_coll_legacy_LDFLAGS = $(NOINSTALL_FLAGS)
endif

# The waits of the node collectives under each SHMEMQ_COLL_WAIT value: test/coll_wait.sh
# runs test_coll's node cases and test_dataq's late-PE flush under `sleep` and `spin`,
# and checks what shmemq_info says.
EXTRA_DIST += test/coll_wait.sh
if BUILD_TESTS
SCRIPT_TESTS += test/coll_wait.sh
test/coll_wait.log: test/test_coll$(EXEEXT) test/test_dataq$(EXEEXT) shmemq_info$(EXEEXT)
endif

# Benchmarks (never run by make check).
noinst_PROGRAMS += bench/coll_bench
bench_coll_bench_SOURCES = bench/coll_bench.c
bench_coll_bench_LDADD = $(SHMEMQ_LIBS)
bench_coll_bench_LDFLAGS = $(NOINSTALL_FLAGS)
