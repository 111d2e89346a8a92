/*
 * pshmem.h: the OpenSHMEM profiling interface. Every public routine of shmemq, shmem_NAME
 * or shmemx_NAME (and the deprecated start_pes, _my_pe, _num_pes, shmalloc, shfree,
 * shrealloc, shmemalign), is also available as p + its name (pshmem_NAME, pshmemx_NAME,
 * pstart_pes, ...): an alias of the same code, so a tool can define shmem_NAME itself and
 * forward to pshmem_NAME.
 *
 * This header declares every one of them. Each twin is declared with the type of the
 * routine it aliases (PSHMEMQ_TWIN below); the list is <shmemq/pshmem_twins.h>, whose
 * typed families are generated from the type tables of shmem.h, as the shmem_
 * declarations are: a family can never cover fewer types here than there.
 * test/robust_pshmem.sh checks against the library that no twin is missing.
 */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#define PSHMEMQ_TYPEOF(f) decltype(f)
#else
#define PSHMEMQ_TYPEOF(f) __typeof__(f)
#endif

/* p##f: declared with the type of f. f is never followed by '(' here, so the generic
 * selection macros of shmem.h (shmem_put, shmem_sync, ...) do not expand. */
#define PSHMEMQ_TWIN(f) extern PSHMEMQ_TYPEOF(f) p##f;
#include <shmemq/pshmem_twins.h>
#undef PSHMEMQ_TWIN

#ifdef __cplusplus
}
#endif

#endif /* PSHMEM_H */
