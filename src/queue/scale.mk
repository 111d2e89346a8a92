# scale: per-queue usage query and memory model (issue 23), their tests, bench/scale.
libshmemq_la_SOURCES += \
	src/queue/queue_usage.h \
	src/queue/queue_usage.c

if BUILD_TESTS
check_PROGRAMS += test/test_scale
test_test_scale_SOURCES = $(TEST_COMMON_SOURCES) test/test_scale.cc
test_test_scale_CPPFLAGS = $(TEST_INCLUDES)
test_test_scale_LDADD = $(TEST_LIBS)
test_test_scale_LDFLAGS = $(NOINSTALL_FLAGS)

# test_scale again at 8 and 16 PEs (oversubscribed), on one node and in nodes of 2 and 4
EXTRA_DIST += test/scale.sh
SCRIPT_TESTS += test/scale.sh
test/scale.log: test/test_scale$(EXEEXT) test/test_dataq_route$(EXEEXT) \
	test/test_dataq_route3$(EXEEXT)
endif

# bench/scale: histogram and index-gather kernels (shared with bench/histogram.c and
# bench/indexgather.c) with each queue's usage; bench/scale.sh runs it at 1..16 PEs
noinst_PROGRAMS += bench/scale
bench_scale_SOURCES = bench/scale.c bench/histogram_kernels.h bench/indexgather_kernels.h \
	bench/bench_util.h
bench_scale_LDADD = $(SHMEMQ_LIBS)
bench_scale_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += bench/scale.sh
