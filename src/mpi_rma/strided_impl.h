/* strided_impl.h: the internal interface of the strided RMA engine (strided.c,
 * strided_table.c). Tests and bench/strided.c declare the hooks they use themselves. */
#ifndef SHMEMI_STRIDED_IMPL_H
#define SHMEMI_STRIDED_IMPL_H

#include "shmemi.h"

/* Methods; the numbers are part of the hook interface (tests, bench). */
enum {
    SHMEMI_STRIDED_AUTO = 0,   /* ask the table (contiguous shortcut first) */
    SHMEMI_STRIDED_VECTOR = 1, /* one MPI call, hvector types on both sides */
    SHMEMI_STRIDED_BLOCKS = 2, /* one contiguous MPI call per block */
    SHMEMI_STRIDED_PACK = 3,   /* pack locally, target-side hvector */
    SHMEMI_STRIDED_NMETHODS = 4
};

/* The one implementation: nblks blocks of blksize bytes whose starts are dst_stride /
 * src_stride bytes apart. Blocking (put: source reusable; get: data arrived). */
void shmemi_strided_put(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                        ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blksize,
                        size_t nblks, int pe);
void shmemi_strided_get(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                        ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blksize,
                        size_t nblks, int pe);

/* ---- table (strided_table.c) ---- */
/* The method the table picks for a strided (non-contiguous) transfer. */
int shmemi_strided_choose(int is_get, size_t blksize, ptrdiff_t dst_stride,
                          ptrdiff_t src_stride, size_t nblks);
/* The same, and in *alt the rule's alternative method (0: none). A cell with an
 * alternative ("pack/blocks" in a rule) is one where the faster of the two changes with
 * the machine's state; the engine times both now and then and uses the faster. */
int shmemi_strided_choose2(int is_get, size_t blksize, ptrdiff_t dst_stride,
                           ptrdiff_t src_stride, size_t nblks, int *alt);
/* Changes whenever the table is replaced (shmemi_strided_load_table). */
unsigned shmemi_strided_table_gen(void);
/* Replace the table by the defaults plus the rules of a file; on any error print why
 * and keep the table as it was. 0 on success. */
int shmemi_strided_load_table(const char *path);
/* Force a method for every later call (SHMEMI_STRIDED_AUTO: use the table); returns the
 * previous setting. Also set by env SHMEMQ_STRIDED_METHOD=auto|vector|blocks|pack. */
int shmemi_strided_set_method(int method);
int shmemi_strided_get_method(void);
const char *shmemi_strided_method_name(int method);
/* The class grid the table is indexed by (exported for the bench's table writer). */
int shmemi_strided_method_by_name(const char *name);

#endif
