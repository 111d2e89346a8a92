/* pshmem_twins.h: the list of every profiling twin, as PSHMEMQ_TWIN(shmem_NAME) entries
 * (PSHMEMQ_TWIN(start_pes) for the deprecated names without a shmem_ prefix). No include
 * guard: the includer defines PSHMEMQ_TWIN -- <pshmem.h> declares each twin with it, and
 * test/programs/pshmem_all.c takes each one's address, so the check of that program
 * against the library (test/robust_pshmem.sh) checks this very list. The typed families
 * come from the type tables of shmem.h, as the shmem_ declarations do. */
#ifndef PSHMEMQ_TWIN
#error "define PSHMEMQ_TWIN(f) before including <shmemq/pshmem_twins.h>"
#endif

/* ---- Setup, exit, query, memory management, ordering, contexts, cache (shmem.h) ---- */
PSHMEMQ_TWIN(shmem_init)
PSHMEMQ_TWIN(shmem_init_thread)
PSHMEMQ_TWIN(shmem_query_thread)
PSHMEMQ_TWIN(shmem_finalize)
PSHMEMQ_TWIN(shmem_global_exit)
PSHMEMQ_TWIN(shmem_my_pe)
PSHMEMQ_TWIN(shmem_n_pes)
PSHMEMQ_TWIN(shmem_pe_accessible)
PSHMEMQ_TWIN(shmem_addr_accessible)
PSHMEMQ_TWIN(shmem_ptr)
PSHMEMQ_TWIN(shmem_team_ptr)
PSHMEMQ_TWIN(shmem_info_get_version)
PSHMEMQ_TWIN(shmem_info_get_name)
PSHMEMQ_TWIN(start_pes)
PSHMEMQ_TWIN(_my_pe)
PSHMEMQ_TWIN(_num_pes)

PSHMEMQ_TWIN(shmem_malloc)
PSHMEMQ_TWIN(shmem_calloc)
PSHMEMQ_TWIN(shmem_align)
PSHMEMQ_TWIN(shmem_realloc)
PSHMEMQ_TWIN(shmem_free)
PSHMEMQ_TWIN(shmem_malloc_with_hints)
PSHMEMQ_TWIN(shmalloc)
PSHMEMQ_TWIN(shfree)
PSHMEMQ_TWIN(shrealloc)
PSHMEMQ_TWIN(shmemalign)

PSHMEMQ_TWIN(shmem_fence)
PSHMEMQ_TWIN(shmem_quiet)
PSHMEMQ_TWIN(shmem_ctx_fence)
PSHMEMQ_TWIN(shmem_ctx_quiet)
PSHMEMQ_TWIN(shmem_pe_quiet)
PSHMEMQ_TWIN(shmem_ctx_pe_quiet)
PSHMEMQ_TWIN(shmem_barrier_all)
PSHMEMQ_TWIN(shmem_sync_all)

PSHMEMQ_TWIN(shmem_team_my_pe)
PSHMEMQ_TWIN(shmem_team_n_pes)
PSHMEMQ_TWIN(shmem_team_get_config)
PSHMEMQ_TWIN(shmem_team_translate_pe)
PSHMEMQ_TWIN(shmem_team_split_strided)
PSHMEMQ_TWIN(shmem_team_split_2d)
PSHMEMQ_TWIN(shmem_team_sync)
PSHMEMQ_TWIN(shmem_team_destroy)

PSHMEMQ_TWIN(shmem_ctx_create)
PSHMEMQ_TWIN(shmem_team_create_ctx)
PSHMEMQ_TWIN(shmem_ctx_destroy)
PSHMEMQ_TWIN(shmem_ctx_get_team)
PSHMEMQ_TWIN(shmem_ctx_session_start)
PSHMEMQ_TWIN(shmem_ctx_session_stop)

PSHMEMQ_TWIN(shmem_clear_cache_inv)
PSHMEMQ_TWIN(shmem_set_cache_inv)
PSHMEMQ_TWIN(shmem_clear_cache_line_inv)
PSHMEMQ_TWIN(shmem_set_cache_line_inv)
PSHMEMQ_TWIN(shmem_udcflush)
PSHMEMQ_TWIN(shmem_udcflush_line)
PSHMEMQ_TWIN(shmem_pcontrol)

/* ---- RMA (shmemq/rma.h, rma_inline.h), block-strided RMA (strided.h), put-with-signal
 * (signal.h) ---- */
#define PSHMEMQ_RMA(T, N)                                                                   \
    PSHMEMQ_TWIN(shmem_##N##_put) PSHMEMQ_TWIN(shmem_ctx_##N##_put)                         \
    PSHMEMQ_TWIN(shmem_##N##_get) PSHMEMQ_TWIN(shmem_ctx_##N##_get)                         \
    PSHMEMQ_TWIN(shmem_##N##_put_nbi) PSHMEMQ_TWIN(shmem_ctx_##N##_put_nbi)                 \
    PSHMEMQ_TWIN(shmem_##N##_get_nbi) PSHMEMQ_TWIN(shmem_ctx_##N##_get_nbi)                 \
    PSHMEMQ_TWIN(shmem_##N##_p) PSHMEMQ_TWIN(shmem_ctx_##N##_p)                             \
    PSHMEMQ_TWIN(shmem_##N##_g) PSHMEMQ_TWIN(shmem_ctx_##N##_g)                             \
    PSHMEMQ_TWIN(shmem_##N##_iput) PSHMEMQ_TWIN(shmem_ctx_##N##_iput)                       \
    PSHMEMQ_TWIN(shmem_##N##_iget) PSHMEMQ_TWIN(shmem_ctx_##N##_iget)                       \
    PSHMEMQ_TWIN(shmem_##N##_ibput) PSHMEMQ_TWIN(shmem_ctx_##N##_ibput)                     \
    PSHMEMQ_TWIN(shmem_##N##_ibget) PSHMEMQ_TWIN(shmem_ctx_##N##_ibget)                     \
    PSHMEMQ_TWIN(shmem_##N##_put_signal) PSHMEMQ_TWIN(shmem_ctx_##N##_put_signal)           \
    PSHMEMQ_TWIN(shmem_##N##_put_signal_nbi) PSHMEMQ_TWIN(shmem_ctx_##N##_put_signal_nbi)   \
    PSHMEMQ_TWIN(shmem_##N##_queue_comm_push)
SHMEMQ_RMA_TYPES(PSHMEMQ_RMA)
#undef PSHMEMQ_RMA

#define PSHMEMQ_SIZED(BITS, BYTES)                                                          \
    PSHMEMQ_TWIN(shmem_put##BITS) PSHMEMQ_TWIN(shmem_ctx_put##BITS)                         \
    PSHMEMQ_TWIN(shmem_get##BITS) PSHMEMQ_TWIN(shmem_ctx_get##BITS)                         \
    PSHMEMQ_TWIN(shmem_put##BITS##_nbi) PSHMEMQ_TWIN(shmem_ctx_put##BITS##_nbi)             \
    PSHMEMQ_TWIN(shmem_get##BITS##_nbi) PSHMEMQ_TWIN(shmem_ctx_get##BITS##_nbi)             \
    PSHMEMQ_TWIN(shmem_iput##BITS) PSHMEMQ_TWIN(shmem_ctx_iput##BITS)                       \
    PSHMEMQ_TWIN(shmem_iget##BITS) PSHMEMQ_TWIN(shmem_ctx_iget##BITS)                       \
    PSHMEMQ_TWIN(shmem_ibput##BITS) PSHMEMQ_TWIN(shmem_ctx_ibput##BITS)                     \
    PSHMEMQ_TWIN(shmem_ibget##BITS) PSHMEMQ_TWIN(shmem_ctx_ibget##BITS)                     \
    PSHMEMQ_TWIN(shmem_put##BITS##_signal) PSHMEMQ_TWIN(shmem_ctx_put##BITS##_signal)       \
    PSHMEMQ_TWIN(shmem_put##BITS##_signal_nbi) PSHMEMQ_TWIN(shmem_ctx_put##BITS##_signal_nbi)
SHMEMQ_SIZED_RMA(PSHMEMQ_SIZED)
#undef PSHMEMQ_SIZED

PSHMEMQ_TWIN(shmem_putmem)
PSHMEMQ_TWIN(shmem_ctx_putmem)
PSHMEMQ_TWIN(shmem_getmem)
PSHMEMQ_TWIN(shmem_ctx_getmem)
PSHMEMQ_TWIN(shmem_putmem_nbi)
PSHMEMQ_TWIN(shmem_ctx_putmem_nbi)
PSHMEMQ_TWIN(shmem_getmem_nbi)
PSHMEMQ_TWIN(shmem_ctx_getmem_nbi)
PSHMEMQ_TWIN(shmem_putmem_signal)
PSHMEMQ_TWIN(shmem_ctx_putmem_signal)
PSHMEMQ_TWIN(shmem_putmem_signal_nbi)
PSHMEMQ_TWIN(shmem_ctx_putmem_signal_nbi)
PSHMEMQ_TWIN(shmem_signal_fetch)
PSHMEMQ_TWIN(shmem_signal_wait_until)
PSHMEMQ_TWIN(shmem_signal_add)
PSHMEMQ_TWIN(shmem_ctx_signal_add)
PSHMEMQ_TWIN(shmem_signal_set)
PSHMEMQ_TWIN(shmem_ctx_signal_set)

/* ---- Atomic memory operations (shmemq/amo.h) ---- */
#define PSHMEMQ_AMO1(T, N, OP) \
    PSHMEMQ_TWIN(shmem_##N##_atomic_##OP) PSHMEMQ_TWIN(shmem_ctx_##N##_atomic_##OP)
#define PSHMEMQ_AMO_EXT(T, N)                                                               \
    PSHMEMQ_AMO1(T, N, fetch) PSHMEMQ_AMO1(T, N, fetch_nbi) PSHMEMQ_AMO1(T, N, set)         \
    PSHMEMQ_AMO1(T, N, swap) PSHMEMQ_AMO1(T, N, swap_nbi)
#define PSHMEMQ_AMO_STD(T, N)                                                               \
    PSHMEMQ_AMO1(T, N, compare_swap) PSHMEMQ_AMO1(T, N, compare_swap_nbi)                   \
    PSHMEMQ_AMO1(T, N, fetch_inc) PSHMEMQ_AMO1(T, N, fetch_inc_nbi) PSHMEMQ_AMO1(T, N, inc) \
    PSHMEMQ_AMO1(T, N, fetch_add) PSHMEMQ_AMO1(T, N, fetch_add_nbi) PSHMEMQ_AMO1(T, N, add)
#define PSHMEMQ_AMO_BIT2(T, N, OP)                                                          \
    PSHMEMQ_AMO1(T, N, fetch_##OP) PSHMEMQ_AMO1(T, N, fetch_##OP##_nbi) PSHMEMQ_AMO1(T, N, OP)
#define PSHMEMQ_AMO_BIT(T, N) \
    PSHMEMQ_AMO_BIT2(T, N, and) PSHMEMQ_AMO_BIT2(T, N, or) PSHMEMQ_AMO_BIT2(T, N, xor)
SHMEMQ_AMO_EXT_TYPES(PSHMEMQ_AMO_EXT)
SHMEMQ_AMO_STD_TYPES(PSHMEMQ_AMO_STD)
SHMEMQ_AMO_BIT_TYPES(PSHMEMQ_AMO_BIT)
#undef PSHMEMQ_AMO_EXT
#undef PSHMEMQ_AMO_STD
#undef PSHMEMQ_AMO_BIT
#undef PSHMEMQ_AMO_BIT2
#undef PSHMEMQ_AMO1

/* the deprecated 1.3 names */
#define PSHMEMQ_AMO_OLD_EXT(T, N) \
    PSHMEMQ_TWIN(shmem_##N##_swap) PSHMEMQ_TWIN(shmem_##N##_fetch) PSHMEMQ_TWIN(shmem_##N##_set)
#define PSHMEMQ_AMO_OLD_STD(T, N)                                                           \
    PSHMEMQ_TWIN(shmem_##N##_cswap) PSHMEMQ_TWIN(shmem_##N##_fadd)                          \
    PSHMEMQ_TWIN(shmem_##N##_finc) PSHMEMQ_TWIN(shmem_##N##_add) PSHMEMQ_TWIN(shmem_##N##_inc)
SHMEMQ_AMO_OLD_EXT_TYPES(PSHMEMQ_AMO_OLD_EXT)
SHMEMQ_AMO_OLD_STD_TYPES(PSHMEMQ_AMO_OLD_STD)
#undef PSHMEMQ_AMO_OLD_EXT
#undef PSHMEMQ_AMO_OLD_STD
PSHMEMQ_TWIN(shmem_swap)

/* ---- Point-to-point synchronization (shmemq/p2p.h) ---- */
#define PSHMEMQ_P2P1(N, OP) PSHMEMQ_TWIN(shmem_##N##_##OP)
#define PSHMEMQ_P2P(T, N)                                                                   \
    PSHMEMQ_P2P1(N, wait_until) PSHMEMQ_P2P1(N, wait_until_all) PSHMEMQ_P2P1(N, wait_until_any) \
    PSHMEMQ_P2P1(N, wait_until_some) PSHMEMQ_P2P1(N, wait_until_all_vector)                 \
    PSHMEMQ_P2P1(N, wait_until_any_vector) PSHMEMQ_P2P1(N, wait_until_some_vector)          \
    PSHMEMQ_P2P1(N, test) PSHMEMQ_P2P1(N, test_all) PSHMEMQ_P2P1(N, test_any)               \
    PSHMEMQ_P2P1(N, test_some) PSHMEMQ_P2P1(N, test_all_vector)                             \
    PSHMEMQ_P2P1(N, test_any_vector) PSHMEMQ_P2P1(N, test_some_vector)
SHMEMQ_P2P_TYPES(PSHMEMQ_P2P)
#undef PSHMEMQ_P2P
#undef PSHMEMQ_P2P1
PSHMEMQ_TWIN(shmem_short_wait)
PSHMEMQ_TWIN(shmem_int_wait)
PSHMEMQ_TWIN(shmem_long_wait)
PSHMEMQ_TWIN(shmem_longlong_wait)
PSHMEMQ_TWIN(shmem_wait)
PSHMEMQ_TWIN(shmem_wait_until)

/* ---- Locks (shmemq/lock.h) ---- */
PSHMEMQ_TWIN(shmem_set_lock)
PSHMEMQ_TWIN(shmem_clear_lock)
PSHMEMQ_TWIN(shmem_test_lock)

/* ---- Collectives (shmemq/coll.h): team-based, then the deprecated active-set forms ---- */
#define PSHMEMQ_COLL_MOVE(T, N)                                                             \
    PSHMEMQ_TWIN(shmem_##N##_broadcast) PSHMEMQ_TWIN(shmem_##N##_collect)                   \
    PSHMEMQ_TWIN(shmem_##N##_fcollect) PSHMEMQ_TWIN(shmem_##N##_alltoall)                   \
    PSHMEMQ_TWIN(shmem_##N##_alltoalls)
SHMEMQ_RMA_TYPES(PSHMEMQ_COLL_MOVE)
#undef PSHMEMQ_COLL_MOVE
PSHMEMQ_TWIN(shmem_broadcastmem)
PSHMEMQ_TWIN(shmem_collectmem)
PSHMEMQ_TWIN(shmem_fcollectmem)
PSHMEMQ_TWIN(shmem_alltoallmem)
PSHMEMQ_TWIN(shmem_alltoallsmem)

#define PSHMEMQ_REDUCE(T, N, OP) PSHMEMQ_TWIN(shmem_##N##_##OP##_reduce)
#define PSHMEMQ_REDUCE_BIT(T, N) \
    PSHMEMQ_REDUCE(T, N, and) PSHMEMQ_REDUCE(T, N, or) PSHMEMQ_REDUCE(T, N, xor)
#define PSHMEMQ_REDUCE_MINMAX(T, N) PSHMEMQ_REDUCE(T, N, max) PSHMEMQ_REDUCE(T, N, min)
#define PSHMEMQ_REDUCE_ARITH(T, N)                                                          \
    PSHMEMQ_REDUCE(T, N, sum) PSHMEMQ_REDUCE(T, N, prod)                                    \
    PSHMEMQ_TWIN(shmem_##N##_sum_inscan) PSHMEMQ_TWIN(shmem_##N##_sum_exscan)
SHMEMQ_REDUCE_BITWISE_TYPES(PSHMEMQ_REDUCE_BIT)
SHMEMQ_REDUCE_MINMAX_TYPES(PSHMEMQ_REDUCE_MINMAX)
SHMEMQ_REDUCE_ARITH_TYPES(PSHMEMQ_REDUCE_ARITH)
#undef PSHMEMQ_REDUCE_BIT
#undef PSHMEMQ_REDUCE_MINMAX
#undef PSHMEMQ_REDUCE_ARITH
#undef PSHMEMQ_REDUCE

PSHMEMQ_TWIN(shmem_barrier)
PSHMEMQ_TWIN(shmem_sync)
#define PSHMEMQ_LEGACY_MOVE(BITS)                                                           \
    PSHMEMQ_TWIN(shmem_broadcast##BITS) PSHMEMQ_TWIN(shmem_collect##BITS)                   \
    PSHMEMQ_TWIN(shmem_fcollect##BITS) PSHMEMQ_TWIN(shmem_alltoall##BITS)                   \
    PSHMEMQ_TWIN(shmem_alltoalls##BITS)
PSHMEMQ_LEGACY_MOVE(32)
PSHMEMQ_LEGACY_MOVE(64)
#undef PSHMEMQ_LEGACY_MOVE
#define PSHMEMQ_TO_ALL(T, N, OP) PSHMEMQ_TWIN(shmem_##N##_##OP##_to_all)
#define PSHMEMQ_TO_ALL_BIT(T, N) \
    PSHMEMQ_TO_ALL(T, N, and) PSHMEMQ_TO_ALL(T, N, or) PSHMEMQ_TO_ALL(T, N, xor)
#define PSHMEMQ_TO_ALL_MINMAX(T, N) PSHMEMQ_TO_ALL(T, N, max) PSHMEMQ_TO_ALL(T, N, min)
#define PSHMEMQ_TO_ALL_ARITH(T, N) PSHMEMQ_TO_ALL(T, N, sum) PSHMEMQ_TO_ALL(T, N, prod)
SHMEMQ_LEGACY_BITWISE_TYPES(PSHMEMQ_TO_ALL_BIT)
SHMEMQ_LEGACY_MINMAX_TYPES(PSHMEMQ_TO_ALL_MINMAX)
SHMEMQ_LEGACY_ARITH_TYPES(PSHMEMQ_TO_ALL_ARITH)
#undef PSHMEMQ_TO_ALL_BIT
#undef PSHMEMQ_TO_ALL_MINMAX
#undef PSHMEMQ_TO_ALL_ARITH
#undef PSHMEMQ_TO_ALL

/* ---- Extensions (shmemx.h): queues, byte-strided RMA, MPI interoperability ---- */
PSHMEMQ_TWIN(shmemx_queue_strerror)
PSHMEMQ_TWIN(shmem_queue_comm_create)
PSHMEMQ_TWIN(shmem_queue_comm_destroy)
PSHMEMQ_TWIN(shmem_query_attr)
PSHMEMQ_TWIN(shmem_query_size)
PSHMEMQ_TWIN(shmem_queue_comm_pushmem)
PSHMEMQ_TWIN(shmem_queue_progress)
PSHMEMQ_TWIN(shmem_queue_local_flush)
PSHMEMQ_TWIN(shmemx_queue_comm_push_strided)
PSHMEMQ_TWIN(shmemx_queue_stats)
PSHMEMQ_TWIN(shmemx_queue_usage)
PSHMEMQ_TWIN(shmemx_queue_model)
PSHMEMQ_TWIN(shmem_queue_data_create)
PSHMEMQ_TWIN(shmem_queue_data_push)
PSHMEMQ_TWIN(shmem_queue_data_pop)
PSHMEMQ_TWIN(shmem_queue_global_flush)
PSHMEMQ_TWIN(shmem_query_data_size)
PSHMEMQ_TWIN(shmem_queue_data_progress)
PSHMEMQ_TWIN(shmem_queue_data_destroy)
PSHMEMQ_TWIN(shmemx_iputmem)
PSHMEMQ_TWIN(shmemx_igetmem)
PSHMEMQ_TWIN(shmemx_team_get_mpi_comm)
