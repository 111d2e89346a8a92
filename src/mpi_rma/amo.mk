# amo: sources, tests, examples and benchmarks of this area.
libshmemq_la_SOURCES += src/mpi_rma/amo.c

if BUILD_TESTS
check_PROGRAMS += test/test_amo
test_test_amo_SOURCES = $(TEST_COMMON_SOURCES) test/test_amo.cc test/test_generic.c
# C API only: Open MPI's C++ bindings (pulled in by <mpi.h>) fail -Werror.
test_test_amo_CPPFLAGS = $(TEST_INCLUDES) -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1
test_test_amo_LDADD = $(TEST_LIBS)
test_test_amo_LDFLAGS = $(NOINSTALL_FLAGS)
endif

noinst_PROGRAMS += bench/amo_rate bench/amo_lockstep
bench_amo_rate_SOURCES = bench/amo_rate.c
bench_amo_rate_LDADD = $(SHMEMQ_LIBS)
bench_amo_rate_LDFLAGS = $(NOINSTALL_FLAGS)
bench_amo_lockstep_SOURCES = bench/amo_lockstep.c
bench_amo_lockstep_LDADD = $(SHMEMQ_LIBS)
bench_amo_lockstep_LDFLAGS = $(NOINSTALL_FLAGS)
