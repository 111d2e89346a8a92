# data: data queues (collective over a team, MPI_Alltoallv exchange).
libshmemq_la_SOURCES += \
	src/queue/data_queue.h \
	src/queue/data_queue.c \
	src/queue/dq_flush.c \
	src/queue/dq_plan.h \
	src/queue/dq_route.h \
	src/queue/dq_route.c \
	src/queue/dq_route_in.c \
	src/queue/dq_size.c \
	src/queue/dq_bufcache.c
shmemqinc_HEADERS += include/shmemq/dataq.h


if BUILD_TESTS
check_PROGRAMS += test/test_dataq
test_test_dataq_SOURCES = $(TEST_COMMON_SOURCES) test/test_dataq.cc
test_test_dataq_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_LDADD = $(TEST_LIBS)
test_test_dataq_LDFLAGS = $(NOINSTALL_FLAGS)
check_PROGRAMS += test/test_dataq_route
test_test_dataq_route_SOURCES = $(TEST_COMMON_SOURCES) test/test_dataq_route.cc
test_test_dataq_route_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_route_LDADD = $(TEST_LIBS)
test_test_dataq_route_LDFLAGS = $(NOINSTALL_FLAGS)
endif

EXTRA_DIST += examples/indexgather.c

noinst_PROGRAMS += examples/indexgather
examples_indexgather_SOURCES = examples/indexgather.c
examples_indexgather_LDADD = $(SHMEMQ_LIBS)
examples_indexgather_LDFLAGS = $(NOINSTALL_FLAGS)
