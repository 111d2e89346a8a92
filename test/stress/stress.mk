# stress: bounded-time stress and randomised model-checked queue tests (issue 13).
# test_model runs like every test binary (run-mpi.sh: 1, 2, 4 PEs, off-node 2, 4).
# Longer runs: SHMEMQ_MODEL_ITERS=<steps>, SHMEMQ_MODEL_SEED=<seed>.
if BUILD_TESTS
check_PROGRAMS += test/test_model
test_test_model_SOURCES = $(TEST_COMMON_SOURCES) test/stress/test_model.cc test/stress/model_util.h
test_test_model_CPPFLAGS = $(TEST_INCLUDES)
test_test_model_LDADD = $(TEST_LIBS)
test_test_model_LDFLAGS = $(NOINSTALL_FLAGS)

endif
