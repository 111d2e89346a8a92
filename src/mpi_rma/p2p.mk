# p2p: point-to-point synchronization, signals, locks, contexts, shmem_ptr.
libshmemq_la_SOURCES += \
	src/mpi_rma/shmemi_p2p.h \
	src/mpi_rma/p2p.c \
	src/mpi_rma/signal.c \
	src/mpi_rma/lock.c \
	src/mpi_rma/ptr.c

# the profiling interface's declarations (pshmem_ names are aliases made by SHMEMI_PROFILE)
include_HEADERS += include/pshmem.h
shmemqinc_HEADERS += include/shmemq/pshmem_twins.h

if BUILD_TESTS
check_PROGRAMS += test/test_p2p
test_test_p2p_SOURCES = $(TEST_COMMON_SOURCES) test/test_p2p.cc test/test_p2p_c11.c
test_test_p2p_CPPFLAGS = $(TEST_INCLUDES)
test_test_p2p_LDADD = $(TEST_LIBS)
test_test_p2p_LDFLAGS = $(NOINSTALL_FLAGS)
endif

if BUILD_TESTS
check_PROGRAMS += test/test_lock
test_test_lock_SOURCES = $(TEST_COMMON_SOURCES) test/test_lock.cc
test_test_lock_CPPFLAGS = $(TEST_INCLUDES)
test_test_lock_LDADD = $(TEST_LIBS)
test_test_lock_LDFLAGS = $(NOINSTALL_FLAGS)
endif

if BUILD_TESTS
check_PROGRAMS += test/test_ctx
test_test_ctx_SOURCES = $(TEST_COMMON_SOURCES) test/test_ctx.cc
test_test_ctx_CPPFLAGS = $(TEST_INCLUDES)
test_test_ctx_LDADD = $(TEST_LIBS)
test_test_ctx_LDFLAGS = $(NOINSTALL_FLAGS)
endif

if BUILD_TESTS
check_PROGRAMS += test/test_signal
test_test_signal_SOURCES = $(TEST_COMMON_SOURCES) test/test_signal.cc
test_test_signal_CPPFLAGS = $(TEST_INCLUDES)
test_test_signal_LDADD = $(TEST_LIBS)
test_test_signal_LDFLAGS = $(NOINSTALL_FLAGS)
endif

noinst_PROGRAMS += bench/ctx_init
bench_ctx_init_SOURCES = bench/ctx_init.c
bench_ctx_init_LDADD = $(SHMEMQ_LIBS)
bench_ctx_init_LDFLAGS = $(NOINSTALL_FLAGS)

if BUILD_TESTS
check_PROGRAMS += test/test_session
test_test_session_SOURCES = $(TEST_COMMON_SOURCES) test/test_session.cc
test_test_session_CPPFLAGS = $(TEST_INCLUDES)
test_test_session_LDADD = $(TEST_LIBS)
test_test_session_LDFLAGS = $(NOINSTALL_FLAGS)
endif

# run by hand under valgrind (docs/sessions.md): objects left alive at shmem_finalize
noinst_PROGRAMS += test/finalize_leaks
test_finalize_leaks_SOURCES = test/programs/finalize_leaks.c
test_finalize_leaks_LDADD = $(SHMEMQ_LIBS)
test_finalize_leaks_LDFLAGS = $(NOINSTALL_FLAGS)

noinst_PROGRAMS += bench/session_amo
bench_session_amo_SOURCES = bench/session_amo.c
bench_session_amo_LDADD = $(SHMEMQ_LIBS)
bench_session_amo_LDFLAGS = $(NOINSTALL_FLAGS)
