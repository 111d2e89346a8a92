/* pshmem_all.c: takes the address of every pshmem_ twin (and pstart_pes, p_my_pe, ...)
 * through the declarations of <pshmem.h> alone. Built with
 * -Werror=implicit-function-declaration (robust.mk), so a twin the header does not declare
 * fails the build; test/robust_pshmem.sh then checks with nm that this program references
 * every twin the library exports, so a twin missing from the lists below fails too.
 * Run without MPI: it only prints how many routines it referenced. */
#include <pshmem.h>
#include <stdio.h>

typedef void (*fn_t)(void);
#define REF(f) (fn_t)&p##f,

static fn_t const twins[] = {
/* ---- Setup, exit, query, memory management, ordering, contexts, cache (shmem.h) ---- */
REF(shmem_init)
REF(shmem_init_thread)
REF(shmem_query_thread)
REF(shmem_finalize)
REF(shmem_global_exit)
REF(shmem_my_pe)
REF(shmem_n_pes)
REF(shmem_pe_accessible)
REF(shmem_addr_accessible)
REF(shmem_ptr)
REF(shmem_team_ptr)
REF(shmem_info_get_version)
REF(shmem_info_get_name)
REF(start_pes)
REF(_my_pe)
REF(_num_pes)

REF(shmem_malloc)
REF(shmem_calloc)
REF(shmem_align)
REF(shmem_realloc)
REF(shmem_free)
REF(shmem_malloc_with_hints)
REF(shmalloc)
REF(shfree)
REF(shrealloc)
REF(shmemalign)

REF(shmem_fence)
REF(shmem_quiet)
REF(shmem_ctx_fence)
REF(shmem_ctx_quiet)
REF(shmem_pe_quiet)
REF(shmem_ctx_pe_quiet)
REF(shmem_barrier_all)
REF(shmem_sync_all)

REF(shmem_team_my_pe)
REF(shmem_team_n_pes)
REF(shmem_team_get_config)
REF(shmem_team_translate_pe)
REF(shmem_team_split_strided)
REF(shmem_team_split_2d)
REF(shmem_team_sync)
REF(shmem_team_destroy)

REF(shmem_ctx_create)
REF(shmem_team_create_ctx)
REF(shmem_ctx_destroy)
REF(shmem_ctx_get_team)
REF(shmem_ctx_session_start)
REF(shmem_ctx_session_stop)

REF(shmem_clear_cache_inv)
REF(shmem_set_cache_inv)
REF(shmem_clear_cache_line_inv)
REF(shmem_set_cache_line_inv)
REF(shmem_udcflush)
REF(shmem_udcflush_line)
REF(shmem_pcontrol)

/* ---- RMA (shmemq/rma.h, rma_inline.h), block-strided RMA (strided.h), put-with-signal
 * (signal.h) ---- */
#define PQ_RMA(T, N)                                                                        \
    REF(shmem_##N##_put) REF(shmem_ctx_##N##_put)                                           \
    REF(shmem_##N##_get) REF(shmem_ctx_##N##_get)                                           \
    REF(shmem_##N##_put_nbi) REF(shmem_ctx_##N##_put_nbi)                                   \
    REF(shmem_##N##_get_nbi) REF(shmem_ctx_##N##_get_nbi)                                   \
    REF(shmem_##N##_p) REF(shmem_ctx_##N##_p)                                               \
    REF(shmem_##N##_g) REF(shmem_ctx_##N##_g)                                               \
    REF(shmem_##N##_iput) REF(shmem_ctx_##N##_iput)                                         \
    REF(shmem_##N##_iget) REF(shmem_ctx_##N##_iget)                                         \
    REF(shmem_##N##_ibput) REF(shmem_ctx_##N##_ibput)                                       \
    REF(shmem_##N##_ibget) REF(shmem_ctx_##N##_ibget)                                       \
    REF(shmem_##N##_put_signal) REF(shmem_ctx_##N##_put_signal)                             \
    REF(shmem_##N##_put_signal_nbi) REF(shmem_ctx_##N##_put_signal_nbi)                     \
    REF(shmem_##N##_queue_comm_push)
SHMEMQ_RMA_TYPES(PQ_RMA)
#undef PQ_RMA

#define PQ_SIZED(BITS, BYTES)                                                               \
    REF(shmem_put##BITS) REF(shmem_ctx_put##BITS)                                           \
    REF(shmem_get##BITS) REF(shmem_ctx_get##BITS)                                           \
    REF(shmem_put##BITS##_nbi) REF(shmem_ctx_put##BITS##_nbi)                               \
    REF(shmem_get##BITS##_nbi) REF(shmem_ctx_get##BITS##_nbi)                               \
    REF(shmem_iput##BITS) REF(shmem_ctx_iput##BITS)                                         \
    REF(shmem_iget##BITS) REF(shmem_ctx_iget##BITS)                                         \
    REF(shmem_ibput##BITS) REF(shmem_ctx_ibput##BITS)                                       \
    REF(shmem_ibget##BITS) REF(shmem_ctx_ibget##BITS)                                       \
    REF(shmem_put##BITS##_signal) REF(shmem_ctx_put##BITS##_signal)                         \
    REF(shmem_put##BITS##_signal_nbi) REF(shmem_ctx_put##BITS##_signal_nbi)
SHMEMQ_SIZED_RMA(PQ_SIZED)
#undef PQ_SIZED

REF(shmem_putmem)
REF(shmem_ctx_putmem)
REF(shmem_getmem)
REF(shmem_ctx_getmem)
REF(shmem_putmem_nbi)
REF(shmem_ctx_putmem_nbi)
REF(shmem_getmem_nbi)
REF(shmem_ctx_getmem_nbi)
REF(shmem_putmem_signal)
REF(shmem_ctx_putmem_signal)
REF(shmem_putmem_signal_nbi)
REF(shmem_ctx_putmem_signal_nbi)
REF(shmem_signal_fetch)
REF(shmem_signal_wait_until)
REF(shmem_signal_add)
REF(shmem_ctx_signal_add)
REF(shmem_signal_set)
REF(shmem_ctx_signal_set)

/* ---- Atomic memory operations (shmemq/amo.h) ---- */
#define PQ_AMO1(T, N, OP)                                                                   \
    REF(shmem_##N##_atomic_##OP) REF(shmem_ctx_##N##_atomic_##OP)
#define PQ_AMO_EXT(T, N)                                                                    \
    PQ_AMO1(T, N, fetch) PQ_AMO1(T, N, fetch_nbi) PQ_AMO1(T, N, set)                        \
    PQ_AMO1(T, N, swap) PQ_AMO1(T, N, swap_nbi)
#define PQ_AMO_STD(T, N)                                                                    \
    PQ_AMO1(T, N, compare_swap) PQ_AMO1(T, N, compare_swap_nbi)                             \
    PQ_AMO1(T, N, fetch_inc) PQ_AMO1(T, N, fetch_inc_nbi) PQ_AMO1(T, N, inc)                \
    PQ_AMO1(T, N, fetch_add) PQ_AMO1(T, N, fetch_add_nbi) PQ_AMO1(T, N, add)
#define PQ_AMO_BIT2(T, N, OP)                                                               \
    PQ_AMO1(T, N, fetch_##OP) PQ_AMO1(T, N, fetch_##OP##_nbi) PQ_AMO1(T, N, OP)
#define PQ_AMO_BIT(T, N)                                                                    \
    PQ_AMO_BIT2(T, N, and) PQ_AMO_BIT2(T, N, or) PQ_AMO_BIT2(T, N, xor)
SHMEMQ_AMO_EXT_TYPES(PQ_AMO_EXT)
SHMEMQ_AMO_STD_TYPES(PQ_AMO_STD)
SHMEMQ_AMO_BIT_TYPES(PQ_AMO_BIT)
#undef PQ_AMO_EXT
#undef PQ_AMO_STD
#undef PQ_AMO_BIT
#undef PQ_AMO_BIT2
#undef PQ_AMO1

/* the deprecated 1.3 names */
#define PQ_AMO_OLD_EXT(T, N)                                                                \
    REF(shmem_##N##_swap) REF(shmem_##N##_fetch) REF(shmem_##N##_set)
#define PQ_AMO_OLD_STD(T, N)                                                                \
    REF(shmem_##N##_cswap) REF(shmem_##N##_fadd)                                            \
    REF(shmem_##N##_finc) REF(shmem_##N##_add) REF(shmem_##N##_inc)
SHMEMQ_AMO_OLD_EXT_TYPES(PQ_AMO_OLD_EXT)
SHMEMQ_AMO_OLD_STD_TYPES(PQ_AMO_OLD_STD)
#undef PQ_AMO_OLD_EXT
#undef PQ_AMO_OLD_STD
REF(shmem_swap)

/* ---- Point-to-point synchronization (shmemq/p2p.h) ---- */
#define PQ_P2P1(N, OP) REF(shmem_##N##_##OP)
#define PQ_P2P(T, N)                                                                        \
    PQ_P2P1(N, wait_until) PQ_P2P1(N, wait_until_all) PQ_P2P1(N, wait_until_any)            \
    PQ_P2P1(N, wait_until_some) PQ_P2P1(N, wait_until_all_vector)                           \
    PQ_P2P1(N, wait_until_any_vector) PQ_P2P1(N, wait_until_some_vector)                    \
    PQ_P2P1(N, test) PQ_P2P1(N, test_all) PQ_P2P1(N, test_any)                              \
    PQ_P2P1(N, test_some) PQ_P2P1(N, test_all_vector)                                       \
    PQ_P2P1(N, test_any_vector) PQ_P2P1(N, test_some_vector)
SHMEMQ_P2P_TYPES(PQ_P2P)
#undef PQ_P2P
#undef PQ_P2P1
REF(shmem_short_wait)
REF(shmem_int_wait)
REF(shmem_long_wait)
REF(shmem_longlong_wait)
REF(shmem_wait)
REF(shmem_wait_until)

/* ---- Locks (shmemq/lock.h) ---- */
REF(shmem_set_lock)
REF(shmem_clear_lock)
REF(shmem_test_lock)

/* ---- Collectives (shmemq/coll.h): team-based, then the deprecated active-set forms ---- */
#define PQ_COLL_MOVE(T, N)                                                                  \
    REF(shmem_##N##_broadcast) REF(shmem_##N##_collect)                                     \
    REF(shmem_##N##_fcollect) REF(shmem_##N##_alltoall)                                     \
    REF(shmem_##N##_alltoalls)
SHMEMQ_RMA_TYPES(PQ_COLL_MOVE)
#undef PQ_COLL_MOVE
REF(shmem_broadcastmem)
REF(shmem_collectmem)
REF(shmem_fcollectmem)
REF(shmem_alltoallmem)
REF(shmem_alltoallsmem)

#define PQ_REDUCE(T, N, OP) REF(shmem_##N##_##OP##_reduce)
#define PQ_REDUCE_BIT(T, N)                                                                 \
    PQ_REDUCE(T, N, and) PQ_REDUCE(T, N, or) PQ_REDUCE(T, N, xor)
#define PQ_REDUCE_MINMAX(T, N) PQ_REDUCE(T, N, max) PQ_REDUCE(T, N, min)
#define PQ_REDUCE_ARITH(T, N)                                                               \
    PQ_REDUCE(T, N, sum) PQ_REDUCE(T, N, prod)                                              \
    REF(shmem_##N##_sum_inscan) REF(shmem_##N##_sum_exscan)
SHMEMQ_REDUCE_BITWISE_TYPES(PQ_REDUCE_BIT)
SHMEMQ_REDUCE_MINMAX_TYPES(PQ_REDUCE_MINMAX)
SHMEMQ_REDUCE_ARITH_TYPES(PQ_REDUCE_ARITH)
#undef PQ_REDUCE_BIT
#undef PQ_REDUCE_MINMAX
#undef PQ_REDUCE_ARITH
#undef PQ_REDUCE

REF(shmem_barrier)
REF(shmem_sync)
#define PQ_LEGACY_MOVE(BITS)                                                                \
    REF(shmem_broadcast##BITS) REF(shmem_collect##BITS)                                     \
    REF(shmem_fcollect##BITS) REF(shmem_alltoall##BITS)                                     \
    REF(shmem_alltoalls##BITS)
PQ_LEGACY_MOVE(32)
PQ_LEGACY_MOVE(64)
#undef PQ_LEGACY_MOVE
#define PQ_TO_ALL(T, N, OP) REF(shmem_##N##_##OP##_to_all)
#define PQ_TO_ALL_BIT(T, N)                                                                 \
    PQ_TO_ALL(T, N, and) PQ_TO_ALL(T, N, or) PQ_TO_ALL(T, N, xor)
#define PQ_TO_ALL_MINMAX(T, N) PQ_TO_ALL(T, N, max) PQ_TO_ALL(T, N, min)
#define PQ_TO_ALL_ARITH(T, N) PQ_TO_ALL(T, N, sum) PQ_TO_ALL(T, N, prod)
SHMEMQ_LEGACY_BITWISE_TYPES(PQ_TO_ALL_BIT)
SHMEMQ_LEGACY_MINMAX_TYPES(PQ_TO_ALL_MINMAX)
SHMEMQ_LEGACY_ARITH_TYPES(PQ_TO_ALL_ARITH)
#undef PQ_TO_ALL_BIT
#undef PQ_TO_ALL_MINMAX
#undef PQ_TO_ALL_ARITH
#undef PQ_TO_ALL

/* ---- Extensions (shmemx.h): queues, byte-strided RMA, MPI interoperability ---- */
REF(shmemx_queue_strerror)
REF(shmem_queue_comm_create)
REF(shmem_queue_comm_destroy)
REF(shmem_query_attr)
REF(shmem_query_size)
REF(shmem_queue_comm_pushmem)
REF(shmem_queue_progress)
REF(shmem_queue_local_flush)
REF(shmemx_queue_comm_push_strided)
REF(shmemx_queue_stats)
REF(shmem_queue_data_create)
REF(shmem_queue_data_push)
REF(shmem_queue_data_pop)
REF(shmem_queue_global_flush)
REF(shmem_query_data_size)
REF(shmem_queue_data_progress)
REF(shmem_queue_data_destroy)
REF(shmemx_iputmem)
REF(shmemx_igetmem)
REF(shmemx_team_get_mpi_comm)

};

int main(void)
{
    size_t n = sizeof twins / sizeof twins[0], null = 0;
    for (size_t i = 0; i < n; i++)
        null += twins[i] == NULL;
    /* and a few calls, which need no shmem_init */
    int major = 0, minor = 0;
    pshmem_info_get_version(&major, &minor);
    int pe = pshmem_my_pe(); /* -1 before shmem_init */
    printf("pshmem_all: %zu profiling twins referenced, %zu NULL; version %d.%d, my_pe %d\n", n,
           null, major, minor, pe);
    return null != 0 || major != SHMEM_MAJOR_VERSION || pe != -1;
}
