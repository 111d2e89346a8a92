/*
 * shmem.h: OpenSHMEM 1.5 (plus the 1.6 block-strided RMA and a few 1.6 additions)
 * implemented by shmemq over MPI-3 RMA.
 *
 * The typed API families are generated from the type tables below, in the order the
 * OpenSHMEM specification lists them, so every family covers the same types.
 * The declarations of each area live in include/shmemq/<area>.h, included at the end.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Library identification ---- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "shmemq 0.1.0 (OpenSHMEM over MPI-3 RMA)"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* ---- Thread levels ---- */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* ---- Point-to-point comparisons ---- */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

/* ---- Memory-management hints ---- */
#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

/* ---- Signals ---- */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* ---- Context options ---- */
#define SHMEM_CTX_PRIVATE 1L
#define SHMEM_CTX_SERIALIZED 2L
#define SHMEM_CTX_NOSTORE 4L

/* ---- Team configuration ---- */
#define SHMEM_TEAM_NUM_CONTEXTS 1L

/* ---- Legacy pSync / pWrk sizes (the collectives use MPI and need no pSync, but the
 * sizes must exist and be large enough for programs that declare the arrays) ---- */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- Opaque handles ---- */
typedef struct shmemq_team *shmem_team_t;
typedef struct shmemq_ctx *shmem_ctx_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

extern shmem_team_t SHMEM_TEAM_WORLD;
extern shmem_team_t SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/*
 * ---- Type tables ----
 * X(TYPE, TYPENAME). Every typed family is generated from one of these.
 */
#define SHMEMQ_RMA_TYPES(X) \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char) \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Sized RMA: X(BITS, BYTES). */
#define SHMEMQ_SIZED_RMA(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

/* Standard AMO types: fetch, set, swap, compare_swap, inc, fetch_inc, add, fetch_add. */
#define SHMEMQ_AMO_STD_TYPES(X) \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) \
    X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set, swap. */
#define SHMEMQ_AMO_EXT_TYPES(X) X(float, float) X(double, double) SHMEMQ_AMO_STD_TYPES(X)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define SHMEMQ_AMO_BIT_TYPES(X) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization types: wait_until, test and their forms. */
#define SHMEMQ_P2P_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Reduction types per operator class. */
#define SHMEMQ_REDUCE_BITWISE_TYPES(X) \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEMQ_REDUCE_MINMAX_TYPES(X) \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) \
    X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(float, float) \
    X(double, double) X(long double, longdouble)
#define SHMEMQ_REDUCE_ARITH_TYPES(X) SHMEMQ_REDUCE_MINMAX_TYPES(X) \
    X(double _Complex, complexd) X(float _Complex, complexf)

/*
 * Distinct C types for C11 _Generic selections: the fixed-width and size typedefs
 * alias these and cannot appear twice in one selection.
 */
#define SHMEMQ_GENERIC_RMA_TYPES(X) \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char) \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMQ_GENERIC_AMO_STD_TYPES(X) \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMQ_GENERIC_AMO_EXT_TYPES(X) X(float, float) X(double, double) \
    SHMEMQ_GENERIC_AMO_STD_TYPES(X)
#define SHMEMQ_GENERIC_AMO_BIT_TYPES(X) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int32_t, int32) X(int64_t, int64)
#define SHMEMQ_GENERIC_P2P_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
    X(unsigned long long, ulonglong)

/* C11 generic selections are on unless the includer opts out (the library itself does). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    !defined(SHMEMQ_NO_GENERIC)
#define SHMEMQ_HAVE_GENERIC 1
#endif

/* ---- Library setup, exit and query ---- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* Deprecated 1.0 names, still used by older programs. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
int shmem_n_pes(void);

/* ---- Memory management ---- */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ---- Memory ordering and barriers ---- */
void shmem_fence(void);
void shmem_quiet(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_barrier_all(void);
void shmem_sync_all(void);

/* ---- Teams ---- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
int shmem_team_sync(shmem_team_t team);
void shmem_team_destroy(shmem_team_t team);

/* ---- Contexts ---- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- Context sessions (OpenSHMEM 1.6): hints that a series of small operations follows ---- */
typedef struct {
    size_t total_ops; /* expected RMA calls in the session (SIZE_MAX: unknown) */
} shmem_ctx_session_config_t;
#define SHMEM_CTX_SESSION_BATCH 1L     /* option: small puts and non-fetching AMOs may be batched */
#define SHMEM_CTX_SESSION_TOTAL_OPS 1L /* config_mask bit: use config->total_ops */
void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* ---- Cache management (no-ops: MPI keeps memory coherent) and profiling control ---- */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);
void shmem_pcontrol(const int level, ...);

#ifdef __cplusplus
}
#endif

#include "shmemq/rma.h"
#include "shmemq/rma_inline.h"
#include "shmemq/amo.h"
#include "shmemq/p2p.h"
#include "shmemq/coll.h"
#include "shmemq/strided.h"
#include "shmemq/signal.h"
#include "shmemq/lock.h"

#endif /* SHMEM_H */
