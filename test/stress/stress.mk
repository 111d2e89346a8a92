# stress: bounded-time stress and randomised model-checked queue tests (issue 13).
# test_model runs like every test binary (run-mpi.sh: 1, 2, 4 PEs, off-node 2, 4).
# test_stress runs through test/stress/stress.sh, which picks its own PE counts
# (default 1, 2 and 8 PEs, oversubscribed, and off-node 2 and 4): it is built for
# `make check` but is not itself in TESTS. Longer runs: SHMEMQ_STRESS_SCALE=<n>,
# SHMEMQ_MODEL_ITERS=<steps>, SHMEMQ_MODEL_SEED=<seed> (docs/testing.md).
EXTRA_DIST += test/stress/stress.sh
if BUILD_TESTS
check_PROGRAMS += test/test_model
test_test_model_SOURCES = $(TEST_COMMON_SOURCES) test/stress/test_model.cc \
	test/stress/test_model_data.cc test/stress/model_util.h
test_test_model_CPPFLAGS = $(TEST_INCLUDES)
test_test_model_LDADD = $(TEST_LIBS)
test_test_model_LDFLAGS = $(NOINSTALL_FLAGS)

EXTRA_PROGRAMS = test/test_stress
test_test_stress_SOURCES = $(TEST_COMMON_SOURCES) test/stress/test_stress.cc test/stress/model_util.h
test_test_stress_CPPFLAGS = $(TEST_INCLUDES)
test_test_stress_LDADD = $(TEST_LIBS)
test_test_stress_LDFLAGS = $(NOINSTALL_FLAGS)
CLEANFILES += test/test_stress$(EXEEXT)

SCRIPT_TESTS += test/stress/stress.sh
test/stress/stress.log: test/test_stress$(EXEEXT)
endif
