# tools: shmemq_info (installed; like oshmem_info). Built in-tree against the library's
# internal header for what only the running library knows (node transport, defaults).
bin_PROGRAMS = shmemq_info
shmemq_info_SOURCES = src/tools/shmemq_info.c
shmemq_info_LDADD = $(SHMEMQ_LIBS)
