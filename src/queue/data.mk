# data: data queues (collective over a team, MPI_Alltoallv exchange).
libshmemq_la_SOURCES += \
	src/queue/data_queue.h \
	src/queue/data_queue.c

# removed when merged with the comm queue dispatch: shmem_query_attr, shmem_query_size,
# shmemx_queue_stats and shmemx_queue_strerror for data queues only (the comm-queue
# area owns them and dispatches to shmemi_dataq_* on the DATQ magic).
# (bench branch integration: the comm queue defines these symbols)
# libshmemq_la_SOURCES += src/queue/data_query_stub.c

if BUILD_TESTS
check_PROGRAMS += test/test_dataq
test_test_dataq_SOURCES = $(TEST_COMMON_SOURCES) test/test_dataq.cc
test_test_dataq_CPPFLAGS = $(TEST_INCLUDES)
test_test_dataq_LDADD = $(TEST_LIBS)
test_test_dataq_LDFLAGS = $(NOINSTALL_FLAGS)
endif

EXTRA_DIST += examples/indexgather.c

# Enable when merged with commq (variant 3 of indexgather uses a communication queue):
# noinst_PROGRAMS += examples/indexgather
# examples_indexgather_SOURCES = examples/indexgather.c
# examples_indexgather_LDADD = $(SHMEMQ_LIBS)
# examples_indexgather_LDFLAGS = $(NOINSTALL_FLAGS)
