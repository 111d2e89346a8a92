# onesided: operations complete whatever the target PE is doing (test/test_onesided.cc),
# on one node (the node transport) and with every PE its own node (SHMEMQ_NODE_PES=1:
# MPI RMA and the comm queues' messages, served by the node agent, which the default
# settings start there since every PE is its node's leader).
if BUILD_TESTS
check_PROGRAMS += test/test_onesided test/test_onesided_offnode
test_test_onesided_SOURCES = $(TEST_COMMON_SOURCES) test/test_onesided.cc
test_test_onesided_CPPFLAGS = $(TEST_INCLUDES)
test_test_onesided_LDADD = $(TEST_LIBS)
test_test_onesided_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_onesided_offnode_SOURCES = $(TEST_COMMON_SOURCES) $(TEST_MAIN_SOURCES) \
	test/test_onesided.cc
test_test_onesided_offnode_CPPFLAGS = $(TEST_INCLUDES) \
	-DSHMEMQ_TEST_ENV='"SHMEMQ_NODE_PES=1"'
test_test_onesided_offnode_LDADD = $(TEST_LIBS)
test_test_onesided_offnode_LDFLAGS = $(NOINSTALL_FLAGS)

# offnode: PEs of other nodes by default (issue 21, test/test_offnode_common.h): the AM
# transport, one atomic domain per node. One binary pair per concern: rma (puts, gets,
# AMOs, a lock), queue_amo (queued atomics), queue_rma (queued puts and gets), standdown
# (the node agent's stand-down). _default with the library's defaults; _async with the
# progress thread on every PE (SHMEMQ_ASYNC_PROGRESS=1), where the spinning target never
# calls the library whatever the default agent does.
check_PROGRAMS += test/test_offnode_rma_default test/test_offnode_rma_async
test_test_offnode_rma_default_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	test/test_offnode_rma.cc
test_test_offnode_rma_default_CPPFLAGS = $(TEST_INCLUDES)
test_test_offnode_rma_default_LDADD = $(TEST_LIBS)
test_test_offnode_rma_default_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_offnode_rma_async_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	$(TEST_MAIN_SOURCES) test/test_offnode_rma.cc
test_test_offnode_rma_async_CPPFLAGS = $(TEST_INCLUDES) \
	-DSHMEMQ_TEST_ENV='"SHMEMQ_ASYNC_PROGRESS=1"'
test_test_offnode_rma_async_LDADD = $(TEST_LIBS)
test_test_offnode_rma_async_LDFLAGS = $(NOINSTALL_FLAGS)
check_PROGRAMS += test/test_offnode_queue_amo_default test/test_offnode_queue_amo_async
test_test_offnode_queue_amo_default_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	test/atomic_rows.h test/test_offnode_queue_amo.cc
test_test_offnode_queue_amo_default_CPPFLAGS = $(TEST_INCLUDES)
test_test_offnode_queue_amo_default_LDADD = $(TEST_LIBS)
test_test_offnode_queue_amo_default_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_offnode_queue_amo_async_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	$(TEST_MAIN_SOURCES) test/test_offnode_queue_amo.cc
test_test_offnode_queue_amo_async_CPPFLAGS = $(TEST_INCLUDES) \
	-DSHMEMQ_TEST_ENV='"SHMEMQ_ASYNC_PROGRESS=1"'
test_test_offnode_queue_amo_async_LDADD = $(TEST_LIBS)
test_test_offnode_queue_amo_async_LDFLAGS = $(NOINSTALL_FLAGS)
check_PROGRAMS += test/test_offnode_queue_rma_default test/test_offnode_queue_rma_async
test_test_offnode_queue_rma_default_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	test/test_offnode_queue_rma.cc
test_test_offnode_queue_rma_default_CPPFLAGS = $(TEST_INCLUDES)
test_test_offnode_queue_rma_default_LDADD = $(TEST_LIBS)
test_test_offnode_queue_rma_default_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_offnode_queue_rma_async_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	$(TEST_MAIN_SOURCES) test/test_offnode_queue_rma.cc
test_test_offnode_queue_rma_async_CPPFLAGS = $(TEST_INCLUDES) \
	-DSHMEMQ_TEST_ENV='"SHMEMQ_ASYNC_PROGRESS=1"'
test_test_offnode_queue_rma_async_LDADD = $(TEST_LIBS)
test_test_offnode_queue_rma_async_LDFLAGS = $(NOINSTALL_FLAGS)
check_PROGRAMS += test/test_offnode_standdown_default test/test_offnode_standdown_async
test_test_offnode_standdown_default_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	test/test_offnode_standdown.cc
test_test_offnode_standdown_default_CPPFLAGS = $(TEST_INCLUDES)
test_test_offnode_standdown_default_LDADD = $(TEST_LIBS)
test_test_offnode_standdown_default_LDFLAGS = $(NOINSTALL_FLAGS)
test_test_offnode_standdown_async_SOURCES = $(TEST_COMMON_SOURCES) test/test_offnode_common.h \
	$(TEST_MAIN_SOURCES) test/test_offnode_standdown.cc
test_test_offnode_standdown_async_CPPFLAGS = $(TEST_INCLUDES) \
	-DSHMEMQ_TEST_ENV='"SHMEMQ_ASYNC_PROGRESS=1"'
test_test_offnode_standdown_async_LDADD = $(TEST_LIBS)
test_test_offnode_standdown_async_LDFLAGS = $(NOINSTALL_FLAGS)

# amo_comb: non-fetching atomics to other nodes combined into one request (issue 21,
# test/test_amo_comb.cc): exact totals, order towards one PE, an origin that spins.
check_PROGRAMS += test/test_amo_comb
test_test_amo_comb_SOURCES = $(TEST_COMMON_SOURCES) test/test_amo_comb.cc
test_test_amo_comb_CPPFLAGS = $(TEST_INCLUDES)
test_test_amo_comb_LDADD = $(TEST_LIBS)
test_test_amo_comb_LDFLAGS = $(NOINSTALL_FLAGS)
endif
