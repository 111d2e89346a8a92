# tools: shmemq_info (installed; like oshmem_info). Built in-tree against the library's
# internal header for what only the running library knows (node transport, defaults).
bin_PROGRAMS = shmemq_info
shmemq_info_SOURCES = src/tools/shmemq_info.c
shmemq_info_LDADD = $(SHMEMQ_LIBS)

# test/info.sh checks its output, and that it and docs/environment.md list every variable
# the library reads. A .sh test: run by the shell (TEST_EXTENSIONS in Makefile.am).
EXTRA_DIST += test/info.sh
if BUILD_TESTS
SCRIPT_TESTS += test/info.sh
test/info.log: shmemq_info$(EXEEXT)
endif
