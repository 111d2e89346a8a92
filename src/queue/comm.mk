# comm: sources, tests, examples and benchmarks of this area.
libshmemq_la_SOURCES += \
	src/queue/queue.h \
	src/queue/queue_layer.c \
	src/queue/session.c \
	src/queue/comm_queue.h \
	src/queue/cq_plan.h \
	src/queue/comm_queue.c \
	src/queue/cq_push.c \
	src/queue/cq_scratch.c \
	src/queue/cq_flush.c \
	src/queue/cq_budget.c \
	src/queue/cq_dense.h \
	src/queue/cq_node.c \
	src/queue/cq_rhold.c \
	src/queue/cq_owner.h \
	src/queue/cq_owner.c \
	src/queue/cq_rma.c \
	src/queue/cq_route.c \
	src/queue/cq_apply.c \
	src/queue/am.c \
	src/queue/queue_error.c
shmemqinc_HEADERS += include/shmemq/queue_inline.h

if BUILD_TESTS
# the data paths, one binary per concern (test/test_commq_common.h: their fixture)
# PUT and GET bursts of every size, large and strided, both windows
check_PROGRAMS += test/test_commq_putget
test_test_commq_putget_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_common.h \
	test/test_commq_putget.cc
test_test_commq_putget_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_putget_LDADD = $(TEST_LIBS)
test_test_commq_putget_LDFLAGS = $(NOINSTALL_FLAGS)
# queued atomics: exact totals, every op and type, packed uniform batches
check_PROGRAMS += test/test_commq_atomics
test_test_commq_atomics_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_common.h \
	test/test_commq_atomics.cc
test_test_commq_atomics_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_atomics_LDADD = $(TEST_LIBS)
test_test_commq_atomics_LDFLAGS = $(NOINSTALL_FLAGS)
# FULL at exactly max_elems, progress and retry, the outstanding count
check_PROGRAMS += test/test_commq_full
test_test_commq_full_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_common.h \
	test/test_commq_full.cc
test_test_commq_full_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_full_LDADD = $(TEST_LIBS)
test_test_commq_full_LDFLAGS = $(NOINSTALL_FLAGS)
# inline, library and C11 generic pushes; targets without queues; live queues at finalize
check_PROGRAMS += test/test_commq_iface
test_test_commq_iface_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_common.h \
	test/test_commq_iface.cc test/test_commq_generic.c test/test_commq_noinline.c
test_test_commq_iface_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_iface_LDADD = $(TEST_LIBS)
test_test_commq_iface_LDFLAGS = $(NOINSTALL_FLAGS)
# the comm queue's life cycle and contract (create/destroy, bad input, threads, timeouts)
check_PROGRAMS += test/test_commq_api
test_test_commq_api_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_api.cc
test_test_commq_api_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_api_LDADD = $(TEST_LIBS)
test_test_commq_api_LDFLAGS = $(NOINSTALL_FLAGS)
# queued and direct atomics on the same words, in a program started by shmem_init
check_PROGRAMS += test/test_amo_paths
test_test_amo_paths_SOURCES = $(TEST_COMMON_SOURCES) $(TEST_MAIN_SOURCES) test/test_amo_paths.cc
test_test_amo_paths_CPPFLAGS = $(TEST_INCLUDES) -DSHMEMQ_TEST_THREAD_SINGLE
test_test_amo_paths_LDADD = $(TEST_LIBS)
test_test_amo_paths_LDFLAGS = $(NOINSTALL_FLAGS)
# owner-applied node bursts: active, computing and spinning owners, mixed with AMOs
check_PROGRAMS += test/test_commq_owner
test_test_commq_owner_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_owner.cc
test_test_commq_owner_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_owner_LDADD = $(TEST_LIBS)
test_test_commq_owner_LDFLAGS = $(NOINSTALL_FLAGS)
# adds to a PE's own memory summed and held until a drain: exact, outstanding, timed
check_PROGRAMS += test/test_commq_hold
test_test_commq_hold_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_hold.cc
test_test_commq_hold_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_hold_LDADD = $(TEST_LIBS)
test_test_commq_hold_LDFLAGS = $(NOINSTALL_FLAGS)
# node-routed queues (SHMEMQ_QUEUE_ROUTE=node): every op exact, one burst per node
check_PROGRAMS += test/test_commq_route
test_test_commq_route_SOURCES = $(TEST_COMMON_SOURCES) test/atomic_rows.h test/test_commq_route.cc
test_test_commq_route_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_route_LDADD = $(TEST_LIBS)
test_test_commq_route_LDFLAGS = $(NOINSTALL_FLAGS)
# one memory budget per queue: tiny budgets, exact results, usage within the budget
check_PROGRAMS += test/test_commq_budget
test_test_commq_budget_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_budget.cc
test_test_commq_budget_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_budget_LDADD = $(TEST_LIBS)
test_test_commq_budget_LDFLAGS = $(NOINSTALL_FLAGS)
# adds to PEs of other nodes summed at the origin: exact, outstanding, every drain
check_PROGRAMS += test/test_commq_rhold
test_test_commq_rhold_SOURCES = $(TEST_COMMON_SOURCES) test/test_commq_rhold.cc
test_test_commq_rhold_CPPFLAGS = $(TEST_INCLUDES)
test_test_commq_rhold_LDADD = $(TEST_LIBS)
test_test_commq_rhold_LDFLAGS = $(NOINSTALL_FLAGS)
endif


noinst_PROGRAMS += bench/commq_rates
bench_commq_rates_SOURCES = bench/commq_rates.c
bench_commq_rates_LDADD = $(SHMEMQ_LIBS)
bench_commq_rates_LDFLAGS = $(NOINSTALL_FLAGS)

noinst_PROGRAMS += bench/commq_flush
bench_commq_flush_SOURCES = bench/commq_flush.c
bench_commq_flush_LDADD = $(SHMEMQ_LIBS)
bench_commq_flush_LDFLAGS = $(NOINSTALL_FLAGS)
# queued ATOMIC_ADD, PUT and GET bursts on the same indices (bench/README.md)
noinst_PROGRAMS += bench/commq_ops
bench_commq_ops_SOURCES = bench/commq_ops.c bench/bench_util.h
bench_commq_ops_LDADD = $(SHMEMQ_LIBS)
bench_commq_ops_LDFLAGS = $(NOINSTALL_FLAGS)
