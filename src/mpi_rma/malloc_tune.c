/*
 * malloc_tune.c: keep glibc from trimming the heap after every queue burst.
 *
 * Why: an RMA burst creates and frees an MPI datatype describing thousands of target
 * displacements. Open MPI allocates its descriptors (a few hundred KiB) on the heap, so
 * each MPI_Type_free leaves that much free at the heap top, and glibc's default trim
 * threshold (128 KiB) returns it to the kernel: a brk shrink (TLB shootdown, and UCX's
 * memory hooks), then page faults to grow again, for every burst. Measured on Open MPI
 * 4.1.4 (bench/histogram, each variant alone): the comm queue ran 38-49 Mupd/s that way
 * and 87 without the trims, the hand-written MPI_Accumulate baseline 34 vs 90; which of
 * them ran first decided who won. glibc raises its
 * mmap and trim thresholds by itself once a program frees one large mmap'ed block
 * (mallopt(3), M_MMAP_THRESHOLD "dynamic"); we free one 4 MiB block at init, so that
 * state is reached at once instead of depending on what the program happened to free.
 * Effect on the process: up to 8 MiB of free heap stays mapped; allocations below 4 MiB
 * come from the heap. SHMEMQ_MALLOC_PRIME=0 turns it off; a program that set its own
 * thresholds (mallopt or MALLOC_*_ env) has disabled glibc's adjustment and keeps them.
 */
#include "shmemi.h"

#include <stdlib.h>
#include <string.h>

#define PRIME_BYTES ((size_t)4 << 20)

void shmemi_malloc_prime(void)
{
#ifdef __GLIBC__
    if (!shmemi_env_bool("SHMEMQ_MALLOC_PRIME", 1))
        return;
    /* volatile: the compiler may drop a malloc/free pair whose memory is never used */
    char *volatile p = malloc(PRIME_BYTES);
    if (p) {
        p[0] = 1;
        free(p);
    }
#endif
}
