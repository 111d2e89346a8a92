# src/mpi_rma: the OpenSHMEM runtime over MPI-3 RMA.
libshmemq_la_SOURCES += \
	src/mpi_rma/shmemi.h \
	src/mpi_rma/init.c \
	src/mpi_rma/error.c \
	src/mpi_rma/env.c \
	src/mpi_rma/settings.c \
	src/mpi_rma/malloc_tune.c \
	src/mpi_rma/mpit_cvar.c \
	src/mpi_rma/progress.c \
	src/mpi_rma/agent.c \
	src/mpi_rma/module.c \
	src/mpi_rma/registry.h \
	src/mpi_rma/registry.c \
	src/mpi_rma/bufcache.h \
	src/mpi_rma/bufcache.c \
	src/mpi_rma/heap.c \
	src/mpi_rma/node.c \
	src/mpi_rma/xport.h \
	src/mpi_rma/xport_types.h \
	src/mpi_rma/xport_node.h \
	src/mpi_rma/xport_mpi.h \
	src/mpi_rma/xport_mpi.c \
	src/mpi_rma/xport_mpi_amo.c \
	src/mpi_rma/xport_mpi_burst.c \
	src/mpi_rma/xport_am.h \
	src/mpi_rma/xport_am_proto.h \
	src/mpi_rma/xport_am.c \
	src/mpi_rma/xport_am_burst.c \
	src/mpi_rma/xport_am_comb.c \
	src/mpi_rma/xport_pack.c \
	src/mpi_rma/xport_am_init.c \
	src/mpi_rma/xport_am_serve.c \
	src/mpi_rma/symseg.c \
	src/mpi_rma/rma.c \
	src/mpi_rma/sync.c \
	src/mpi_rma/ctx.c

shmemqinc_HEADERS += \
	include/shmemq/rma.h \
	include/shmemq/rma_inline.h \
	include/shmemq/amo.h \
	include/shmemq/p2p.h \
	include/shmemq/coll.h \
	include/shmemq/strided.h \
	include/shmemq/signal.h \
	include/shmemq/lock.h

if BUILD_TESTS
check_PROGRAMS += test/test_core
test_test_core_SOURCES = $(TEST_COMMON_SOURCES) test/test_core.cc test/test_static.c
test_test_core_CPPFLAGS = $(TEST_INCLUDES)
test_test_core_LDADD = $(TEST_LIBS)
test_test_core_LDFLAGS = $(NOINSTALL_FLAGS)
endif

noinst_PROGRAMS += examples/ring
examples_ring_SOURCES = examples/ring.c
examples_ring_LDADD = $(SHMEMQ_LIBS)
examples_ring_LDFLAGS = $(NOINSTALL_FLAGS)

# test/lint_transport.sh: MPI RMA calls appear only in the MPI transport (xport.h names its
# files). A .sh test: run by the shell (TEST_EXTENSIONS in Makefile.am); no build needed.
EXTRA_DIST += test/lint_transport.sh
if BUILD_TESTS
SCRIPT_TESTS += test/lint_transport.sh
endif

# The runtime neither includes nor calls the queue layer (docs/architecture.md).
# A .sh test: run by the shell (TEST_EXTENSIONS in Makefile.am).
EXTRA_DIST += test/layers.sh
if BUILD_TESTS
SCRIPT_TESTS += test/layers.sh
endif
