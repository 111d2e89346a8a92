/* shmemq/amo.h: atomic memory operations (OpenSHMEM 1.5 section 9.7), typed, blocking and
 * _nbi, with and without a context, the deprecated 1.3 names, and the C11 generic
 * selections. Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_AMO_H
#define SHMEMQ_AMO_H

#ifdef __cplusplus
extern "C" {
#endif

/* Extended AMOs: fetch, set, swap. */
#define SHMEMQ_DECL_AMO_EXT(T, N)                                                            \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                     \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                    \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                   \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);              \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                     \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                    \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
SHMEMQ_AMO_EXT_TYPES(SHMEMQ_DECL_AMO_EXT)
#undef SHMEMQ_DECL_AMO_EXT

/* Standard AMOs: compare_swap, fetch_inc, inc, fetch_add, add. */
#define SHMEMQ_DECL_AMO_STD(T, N)                                                            \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                     \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe); \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);    \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,  \
                                                 T value, int pe);                           \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                         \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                    \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                        \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);   \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                            \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                       \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);           \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);               \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,   \
                                              int pe);                                       \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                   \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);
SHMEMQ_AMO_STD_TYPES(SHMEMQ_DECL_AMO_STD)
#undef SHMEMQ_DECL_AMO_STD

/* Bitwise AMOs: and, or, xor and their fetching forms. */
#define SHMEMQ_DECL_AMO_BIT1(T, N, OP)                                                       \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                               \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);            \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, \
                                                 int pe);                                    \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                  \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);
#define SHMEMQ_DECL_AMO_BIT(T, N) \
    SHMEMQ_DECL_AMO_BIT1(T, N, and) SHMEMQ_DECL_AMO_BIT1(T, N, or) SHMEMQ_DECL_AMO_BIT1(T, N, xor)
SHMEMQ_AMO_BIT_TYPES(SHMEMQ_DECL_AMO_BIT)
#undef SHMEMQ_DECL_AMO_BIT
#undef SHMEMQ_DECL_AMO_BIT1

/* Deprecated OpenSHMEM 1.3 names (kept for older programs). */
#define SHMEMQ_DECL_AMO_OLD_EXT(T, N)                  \
    T shmem_##N##_swap(T *target, T value, int pe);    \
    T shmem_##N##_fetch(const T *target, int pe);      \
    void shmem_##N##_set(T *target, T value, int pe);
#define SHMEMQ_DECL_AMO_OLD_STD(T, N)                          \
    T shmem_##N##_cswap(T *target, T cond, T value, int pe);   \
    T shmem_##N##_fadd(T *target, T value, int pe);            \
    T shmem_##N##_finc(T *target, int pe);                     \
    void shmem_##N##_add(T *target, T value, int pe);          \
    void shmem_##N##_inc(T *target, int pe);
#define SHMEMQ_AMO_OLD_STD_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMQ_AMO_OLD_EXT_TYPES(X) X(float, float) X(double, double) SHMEMQ_AMO_OLD_STD_TYPES(X)
SHMEMQ_AMO_OLD_EXT_TYPES(SHMEMQ_DECL_AMO_OLD_EXT)
SHMEMQ_AMO_OLD_STD_TYPES(SHMEMQ_DECL_AMO_OLD_STD)
#undef SHMEMQ_DECL_AMO_OLD_EXT
#undef SHMEMQ_DECL_AMO_OLD_STD
long shmem_swap(long *target, long value, int pe);

#ifdef __cplusplus
}
#endif

#ifdef SHMEMQ_HAVE_GENERIC
/*
 * C11 generic selections. Each op accepts the form without a context and the form with
 * one (an extra first argument); the argument count picks the form, the type of the
 * destination (or fetch buffer) picks the typed routine, as shmem_put in rma.h.
 */
#define SHMEMQ_GA(T, N, OP) , T *: shmem_##N##_atomic_##OP
#define SHMEMQ_GA_CTX(T, N, OP) , T *: shmem_ctx_##N##_atomic_##OP
/* Per-op association generators (the type tables pass two arguments). */
#define SHMEMQ_GA_FETCH(T, N) , T *: shmem_##N##_atomic_fetch, const T *: shmem_##N##_atomic_fetch
#define SHMEMQ_GA_CTX_FETCH(T, N) \
    , T *: shmem_ctx_##N##_atomic_fetch, const T *: shmem_ctx_##N##_atomic_fetch
#define SHMEMQ_GA_FETCH_NBI(T, N) SHMEMQ_GA(T, N, fetch_nbi)
#define SHMEMQ_GA_CTX_FETCH_NBI(T, N) SHMEMQ_GA_CTX(T, N, fetch_nbi)
#define SHMEMQ_GA_SET(T, N) SHMEMQ_GA(T, N, set)
#define SHMEMQ_GA_CTX_SET(T, N) SHMEMQ_GA_CTX(T, N, set)
#define SHMEMQ_GA_SWAP(T, N) SHMEMQ_GA(T, N, swap)
#define SHMEMQ_GA_CTX_SWAP(T, N) SHMEMQ_GA_CTX(T, N, swap)
#define SHMEMQ_GA_SWAP_NBI(T, N) SHMEMQ_GA(T, N, swap_nbi)
#define SHMEMQ_GA_CTX_SWAP_NBI(T, N) SHMEMQ_GA_CTX(T, N, swap_nbi)
#define SHMEMQ_GA_CSWAP(T, N) SHMEMQ_GA(T, N, compare_swap)
#define SHMEMQ_GA_CTX_CSWAP(T, N) SHMEMQ_GA_CTX(T, N, compare_swap)
#define SHMEMQ_GA_CSWAP_NBI(T, N) SHMEMQ_GA(T, N, compare_swap_nbi)
#define SHMEMQ_GA_CTX_CSWAP_NBI(T, N) SHMEMQ_GA_CTX(T, N, compare_swap_nbi)
#define SHMEMQ_GA_FINC(T, N) SHMEMQ_GA(T, N, fetch_inc)
#define SHMEMQ_GA_CTX_FINC(T, N) SHMEMQ_GA_CTX(T, N, fetch_inc)
#define SHMEMQ_GA_FINC_NBI(T, N) SHMEMQ_GA(T, N, fetch_inc_nbi)
#define SHMEMQ_GA_CTX_FINC_NBI(T, N) SHMEMQ_GA_CTX(T, N, fetch_inc_nbi)
#define SHMEMQ_GA_INC(T, N) SHMEMQ_GA(T, N, inc)
#define SHMEMQ_GA_CTX_INC(T, N) SHMEMQ_GA_CTX(T, N, inc)
#define SHMEMQ_GA_FADD(T, N) SHMEMQ_GA(T, N, fetch_add)
#define SHMEMQ_GA_CTX_FADD(T, N) SHMEMQ_GA_CTX(T, N, fetch_add)
#define SHMEMQ_GA_FADD_NBI(T, N) SHMEMQ_GA(T, N, fetch_add_nbi)
#define SHMEMQ_GA_CTX_FADD_NBI(T, N) SHMEMQ_GA_CTX(T, N, fetch_add_nbi)
#define SHMEMQ_GA_ADD(T, N) SHMEMQ_GA(T, N, add)
#define SHMEMQ_GA_CTX_ADD(T, N) SHMEMQ_GA_CTX(T, N, add)
#define SHMEMQ_GA_FAND(T, N) SHMEMQ_GA(T, N, fetch_and)
#define SHMEMQ_GA_CTX_FAND(T, N) SHMEMQ_GA_CTX(T, N, fetch_and)
#define SHMEMQ_GA_FAND_NBI(T, N) SHMEMQ_GA(T, N, fetch_and_nbi)
#define SHMEMQ_GA_CTX_FAND_NBI(T, N) SHMEMQ_GA_CTX(T, N, fetch_and_nbi)
#define SHMEMQ_GA_AND(T, N) SHMEMQ_GA(T, N, and)
#define SHMEMQ_GA_CTX_AND(T, N) SHMEMQ_GA_CTX(T, N, and)
#define SHMEMQ_GA_FOR(T, N) SHMEMQ_GA(T, N, fetch_or)
#define SHMEMQ_GA_CTX_FOR(T, N) SHMEMQ_GA_CTX(T, N, fetch_or)
#define SHMEMQ_GA_FOR_NBI(T, N) SHMEMQ_GA(T, N, fetch_or_nbi)
#define SHMEMQ_GA_CTX_FOR_NBI(T, N) SHMEMQ_GA_CTX(T, N, fetch_or_nbi)
#define SHMEMQ_GA_OR(T, N) SHMEMQ_GA(T, N, or)
#define SHMEMQ_GA_CTX_OR(T, N) SHMEMQ_GA_CTX(T, N, or)
#define SHMEMQ_GA_FXOR(T, N) SHMEMQ_GA(T, N, fetch_xor)
#define SHMEMQ_GA_CTX_FXOR(T, N) SHMEMQ_GA_CTX(T, N, fetch_xor)
#define SHMEMQ_GA_FXOR_NBI(T, N) SHMEMQ_GA(T, N, fetch_xor_nbi)
#define SHMEMQ_GA_CTX_FXOR_NBI(T, N) SHMEMQ_GA_CTX(T, N, fetch_xor_nbi)
#define SHMEMQ_GA_XOR(T, N) SHMEMQ_GA(T, N, xor)
#define SHMEMQ_GA_CTX_XOR(T, N) SHMEMQ_GA_CTX(T, N, xor)

/* SHMEMQ_AG(TABLE, GEN, SEL, ...): select on SEL among TABLE's types, call with the rest. */
#define SHMEMQ_AG(TABLE, GEN, sel, ...) _Generic((sel)TABLE(GEN))(__VA_ARGS__)

#define SHMEMQ_AFETCH2(s, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_FETCH, s, s, pe)
#define SHMEMQ_AFETCH3(c, s, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_CTX_FETCH, s, c, s, pe)
#define shmem_atomic_fetch(...) SHMEMQ_CAT(SHMEMQ_AFETCH, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SHMEMQ_AFETCH_NBI3(f, s, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_FETCH_NBI, f, f, s, pe)
#define SHMEMQ_AFETCH_NBI4(c, f, s, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_CTX_FETCH_NBI, f, c, f, s, pe)
#define shmem_atomic_fetch_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_AFETCH_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

/* dest, value, pe (3) / ctx, dest, value, pe (4): set, swap, fetch_add, add, bitwise. */
#define SHMEMQ_ASET3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_SET, d, d, v, pe)
#define SHMEMQ_ASET4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_CTX_SET, d, c, d, v, pe)
#define shmem_atomic_set(...) SHMEMQ_CAT(SHMEMQ_ASET, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_ASWAP3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_SWAP, d, d, v, pe)
#define SHMEMQ_ASWAP4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_CTX_SWAP, d, c, d, v, pe)
#define shmem_atomic_swap(...) SHMEMQ_CAT(SHMEMQ_ASWAP, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_ASWAP_NBI4(f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_SWAP_NBI, d, f, d, v, pe)
#define SHMEMQ_ASWAP_NBI5(c, f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_EXT_TYPES, SHMEMQ_GA_CTX_SWAP_NBI, d, c, f, d, v, pe)
#define shmem_atomic_swap_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_ASWAP_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SHMEMQ_ACSWAP4(d, cd, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CSWAP, d, d, cd, v, pe)
#define SHMEMQ_ACSWAP5(c, d, cd, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_CSWAP, d, c, d, cd, v, pe)
#define shmem_atomic_compare_swap(...) \
    SHMEMQ_CAT(SHMEMQ_ACSWAP, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_ACSWAP_NBI5(f, d, cd, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CSWAP_NBI, d, f, d, cd, v, pe)
#define SHMEMQ_ACSWAP_NBI6(c, f, d, cd, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_CSWAP_NBI, d, c, f, d, cd, v, pe)
#define shmem_atomic_compare_swap_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_ACSWAP_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SHMEMQ_AFINC2(d, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_FINC, d, d, pe)
#define SHMEMQ_AFINC3(c, d, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_FINC, d, c, d, pe)
#define shmem_atomic_fetch_inc(...) \
    SHMEMQ_CAT(SHMEMQ_AFINC, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AFINC_NBI3(f, d, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_FINC_NBI, d, f, d, pe)
#define SHMEMQ_AFINC_NBI4(c, f, d, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_FINC_NBI, d, c, f, d, pe)
#define shmem_atomic_fetch_inc_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_AFINC_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AINC2(d, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_INC, d, d, pe)
#define SHMEMQ_AINC3(c, d, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_INC, d, c, d, pe)
#define shmem_atomic_inc(...) SHMEMQ_CAT(SHMEMQ_AINC, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

/* fetch_OP (3/4 args), fetch_OP_nbi (4/5), OP (3/4) for OP in add and the bitwise ops. */
#define SHMEMQ_AFADD3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_FADD, d, d, v, pe)
#define SHMEMQ_AFADD4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_FADD, d, c, d, v, pe)
#define shmem_atomic_fetch_add(...) \
    SHMEMQ_CAT(SHMEMQ_AFADD, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AFADD_NBI4(f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_FADD_NBI, d, f, d, v, pe)
#define SHMEMQ_AFADD_NBI5(c, f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_FADD_NBI, d, c, f, d, v, pe)
#define shmem_atomic_fetch_add_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_AFADD_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AADD3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_ADD, d, d, v, pe)
#define SHMEMQ_AADD4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_STD_TYPES, SHMEMQ_GA_CTX_ADD, d, c, d, v, pe)
#define shmem_atomic_add(...) SHMEMQ_CAT(SHMEMQ_AADD, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SHMEMQ_AFAND3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_FAND, d, d, v, pe)
#define SHMEMQ_AFAND4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_FAND, d, c, d, v, pe)
#define shmem_atomic_fetch_and(...) \
    SHMEMQ_CAT(SHMEMQ_AFAND, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AFAND_NBI4(f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_FAND_NBI, d, f, d, v, pe)
#define SHMEMQ_AFAND_NBI5(c, f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_FAND_NBI, d, c, f, d, v, pe)
#define shmem_atomic_fetch_and_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_AFAND_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AAND3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_AND, d, d, v, pe)
#define SHMEMQ_AAND4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_AND, d, c, d, v, pe)
#define shmem_atomic_and(...) SHMEMQ_CAT(SHMEMQ_AAND, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SHMEMQ_AFOR3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_FOR, d, d, v, pe)
#define SHMEMQ_AFOR4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_FOR, d, c, d, v, pe)
#define shmem_atomic_fetch_or(...) SHMEMQ_CAT(SHMEMQ_AFOR, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AFOR_NBI4(f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_FOR_NBI, d, f, d, v, pe)
#define SHMEMQ_AFOR_NBI5(c, f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_FOR_NBI, d, c, f, d, v, pe)
#define shmem_atomic_fetch_or_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_AFOR_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AOR3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_OR, d, d, v, pe)
#define SHMEMQ_AOR4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_OR, d, c, d, v, pe)
#define shmem_atomic_or(...) SHMEMQ_CAT(SHMEMQ_AOR, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

#define SHMEMQ_AFXOR3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_FXOR, d, d, v, pe)
#define SHMEMQ_AFXOR4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_FXOR, d, c, d, v, pe)
#define shmem_atomic_fetch_xor(...) \
    SHMEMQ_CAT(SHMEMQ_AFXOR, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AFXOR_NBI4(f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_FXOR_NBI, d, f, d, v, pe)
#define SHMEMQ_AFXOR_NBI5(c, f, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_FXOR_NBI, d, c, f, d, v, pe)
#define shmem_atomic_fetch_xor_nbi(...) \
    SHMEMQ_CAT(SHMEMQ_AFXOR_NBI, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMQ_AXOR3(d, v, pe) SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_XOR, d, d, v, pe)
#define SHMEMQ_AXOR4(c, d, v, pe) \
    SHMEMQ_AG(SHMEMQ_GENERIC_AMO_BIT_TYPES, SHMEMQ_GA_CTX_XOR, d, c, d, v, pe)
#define shmem_atomic_xor(...) SHMEMQ_CAT(SHMEMQ_AXOR, SHMEMQ_NARG(__VA_ARGS__))(__VA_ARGS__)

/* Deprecated 1.3 generic names (still in 1.5 as deprecated). They select among all the
 * standard (extended for swap, set, fetch) AMO types, like the 1.4 names they became;
 * on int, long and long long that is what the 1.3 typed routines do. */
#define shmem_add(d, v, pe) SHMEMQ_AADD3(d, v, pe)
#define shmem_inc(d, pe) SHMEMQ_AINC2(d, pe)
#define shmem_fadd(d, v, pe) SHMEMQ_AFADD3(d, v, pe)
#define shmem_finc(d, pe) SHMEMQ_AFINC2(d, pe)
#define shmem_cswap(d, c, v, pe) SHMEMQ_ACSWAP4(d, c, v, pe)
#define shmem_swap(d, v, pe) SHMEMQ_ASWAP3(d, v, pe)
#define shmem_set(d, v, pe) SHMEMQ_ASET3(d, v, pe)
#define shmem_fetch(s, pe) SHMEMQ_AFETCH2(s, pe)
#endif /* SHMEMQ_HAVE_GENERIC */

#endif /* SHMEMQ_AMO_H */
