# agree: every PE of a collective returns the error when one PE passes bad input
# (collective agreement), and the SHMEM_DEBUG watchdog where no team is known.
libshmemq_la_SOURCES += \
	src/mpi_rma/agree.h \
	src/mpi_rma/agree.c

if BUILD_TESTS
check_PROGRAMS += test/test_agree
test_test_agree_SOURCES = $(TEST_COMMON_SOURCES) test/test_agree.cc
test_test_agree_CPPFLAGS = $(TEST_INCLUDES)
test_test_agree_LDADD = $(TEST_LIBS)
test_test_agree_LDFLAGS = $(NOINSTALL_FLAGS)
endif

# The watchdog check: test/agree_watchdog.sh runs this program (one PE cannot take part
# in a collective) under SHMEM_DEBUG=1 SHMEMQ_WATCHDOG_SECONDS=2 and expects the job to
# end, nonzero, with the watchdog's message. A .sh test: run by the shell (TEST_EXTENSIONS
# in Makefile.am), not by run-mpi.sh.
noinst_PROGRAMS += test/agree_watchdog
test_agree_watchdog_SOURCES = test/agree_watchdog.c test/misuse_queue.h
test_agree_watchdog_LDADD = $(SHMEMQ_LIBS)
test_agree_watchdog_LDFLAGS = $(NOINSTALL_FLAGS)
EXTRA_DIST += test/agree_watchdog.sh
if BUILD_TESTS
SCRIPT_TESTS += test/agree_watchdog.sh
test/agree_watchdog.log: test/agree_watchdog$(EXEEXT)
endif
