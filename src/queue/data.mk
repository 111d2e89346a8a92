# data: data queues (collective over a team, MPI_Alltoallv or sparse NBX exchange).
libshmemq_la_SOURCES += \
	src/queue/data_queue.h \
	src/queue/data_queue.c \
	src/queue/dq_create.c \
	src/queue/dq_flush.c \
	src/queue/dq_nbx.h \
	src/queue/dq_nbx.c \
	src/queue/dq_plan.h \
	src/queue/dq_route.h \
	src/queue/dq_route.c \
	src/queue/dq_route_in.c \
	src/queue/dq_route_hop.c \
	src/queue/dq_size.c \
	src/queue/dq_bufcache.c
shmemqinc_HEADERS += include/shmemq/dataq.h


if BUILD_TESTS
check_PROGRAMS += test/test_dataq
test_test_dataq_SOURCES = $(TEST_COMMON_SOURCES) test/test_dataq.cc
test_test_dataq_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_LDADD = $(TEST_LIBS)
test_test_dataq_LDFLAGS = $(NOINSTALL_FLAGS)
# the inline push and pop against the library's, and SHARED queues with threads
check_PROGRAMS += test/test_dataq_inline
test_test_dataq_inline_SOURCES = $(TEST_COMMON_SOURCES) test/test_dataq_inline.cc
test_test_dataq_inline_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_inline_LDADD = $(TEST_LIBS)
test_test_dataq_inline_LDFLAGS = $(NOINSTALL_FLAGS)
check_PROGRAMS += test/test_dataq_nbx
test_test_dataq_nbx_SOURCES = $(TEST_COMMON_SOURCES) test/test_dataq_nbx.cc
test_test_dataq_nbx_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_nbx_LDADD = $(TEST_LIBS)
test_test_dataq_nbx_LDFLAGS = $(NOINSTALL_FLAGS)
check_PROGRAMS += test/test_dataq_route
test_test_dataq_route_SOURCES = $(TEST_COMMON_SOURCES) test/dataq_route_util.h \
	test/test_dataq_route.cc test/test_dataq_route_auto.cc
test_test_dataq_route_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_route_LDADD = $(TEST_LIBS)
test_test_dataq_route_LDFLAGS = $(NOINSTALL_FLAGS)
# the same cases with three hops (SHMEMQ_DATAQ_ROUTE=3hop)
check_PROGRAMS += test/test_dataq_route3
test_test_dataq_route3_SOURCES = $(TEST_COMMON_SOURCES) test/dataq_route_util.h \
	test/test_dataq_route.cc
test_test_dataq_route3_CPPFLAGS = $(TEST_INCLUDES) -DSHMEMQ_TEST_ROUTE_HOPS=3
test_test_dataq_route3_LDADD = $(TEST_LIBS)
test_test_dataq_route3_LDFLAGS = $(NOINSTALL_FLAGS)
endif

# All of test_dataq and test_dataq_inline again with every direct flush through the sparse exchange
# (SHMEMQ_DATAQ_EXCHANGE=nbx), in every configuration run-mpi.sh runs: test/dataq_nbx.sh
EXTRA_DIST += test/dataq_nbx.sh
if BUILD_TESTS
SCRIPT_TESTS += test/dataq_nbx.sh
test/dataq_nbx.log: test/test_dataq$(EXEEXT) test/test_dataq_inline$(EXEEXT)
endif

# one global flush with sparse traffic, alltoallv against NBX (docs/data_queues.md)
noinst_PROGRAMS += bench/dataq_flush
bench_dataq_flush_SOURCES = bench/dataq_flush.c
bench_dataq_flush_LDADD = $(SHMEMQ_LIBS)
bench_dataq_flush_LDFLAGS = $(NOINSTALL_FLAGS)
noinst_PROGRAMS += bench/dataq_phases
bench_dataq_phases_SOURCES = bench/dataq_phases.c bench/bench_util.h
bench_dataq_phases_LDADD = $(SHMEMQ_LIBS)
bench_dataq_phases_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += bench/dataq_exchange.sh

EXTRA_DIST += examples/indexgather.c

noinst_PROGRAMS += examples/indexgather
examples_indexgather_SOURCES = examples/indexgather.c
examples_indexgather_LDADD = $(SHMEMQ_LIBS)
examples_indexgather_LDFLAGS = $(NOINSTALL_FLAGS)
