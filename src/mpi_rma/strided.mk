# strided: sources, tests, examples and benchmarks of this area.
libshmemq_la_SOURCES += \
	src/mpi_rma/strided_impl.h \
	src/mpi_rma/strided_default_table.h \
	src/mpi_rma/strided.c \
	src/mpi_rma/xport_mpi_strided.c \
	src/mpi_rma/strided_table.c

if BUILD_TESTS
check_PROGRAMS += test/test_strided
test_test_strided_SOURCES = $(TEST_COMMON_SOURCES) test/test_strided.cc test/test_strided_generic.c
test_test_strided_CPPFLAGS = $(TEST_INCLUDES)
test_test_strided_LDADD = $(TEST_LIBS)
test_test_strided_LDFLAGS = $(NOINSTALL_FLAGS)
endif

noinst_PROGRAMS += examples/halo2d bench/strided
examples_halo2d_SOURCES = examples/halo2d.c
examples_halo2d_LDADD = $(SHMEMQ_LIBS)
examples_halo2d_LDFLAGS = $(NOINSTALL_FLAGS)
bench_strided_SOURCES = bench/strided.c
bench_strided_LDADD = $(SHMEMQ_LIBS) -lm
bench_strided_LDFLAGS = $(NOINSTALL_FLAGS)
