/* test_p2p_c11.c: the C11 generic selections of the point-to-point routines (C++
 * translation units cannot use them). Returns 0 when every check passes. */
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>

#ifndef SHMEMQ_HAVE_GENERIC
#error "C11 generics expected"
#endif

int c11_generic_p2p(long *flags, int n)
{
    int me = shmem_my_pe();
    int bad = 0;
    size_t *idx = malloc(sizeof(size_t) * (size_t)n);
    int *status = calloc((size_t)n, sizeof(int));
    long *want = malloc(sizeof(long) * (size_t)n);
    if (!idx || !status || !want)
        return 1;
    for (int pe = 0; pe < n; pe++)
        shmem_long_p(&flags[me], 1, pe);
    shmem_wait_until(&flags[(me + n - 1) % n], SHMEM_CMP_EQ, 1);
    shmem_wait_until_all(flags, (size_t)n, status, SHMEM_CMP_EQ, 1);
    bad |= shmem_wait_until_any(flags, (size_t)n, status, SHMEM_CMP_EQ, 1) >= (size_t)n;
    bad |= shmem_wait_until_some(flags, (size_t)n, idx, status, SHMEM_CMP_EQ, 1) != (size_t)n;
    for (int i = 0; i < n; i++)
        want[i] = 1;
    shmem_wait_until_all_vector(flags, (size_t)n, NULL, SHMEM_CMP_EQ, want);
    bad |= shmem_wait_until_any_vector(flags, (size_t)n, NULL, SHMEM_CMP_EQ, want) >= (size_t)n;
    bad |= shmem_wait_until_some_vector(flags, (size_t)n, idx, NULL, SHMEM_CMP_EQ, want) !=
           (size_t)n;
    bad |= !shmem_test(&flags[0], SHMEM_CMP_EQ, 1);
    bad |= !shmem_test_all(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
    bad |= shmem_test_any(flags, (size_t)n, NULL, SHMEM_CMP_EQ, 2) != SIZE_MAX;
    bad |= shmem_test_some(flags, (size_t)n, idx, NULL, SHMEM_CMP_GE, 1) != (size_t)n;
    bad |= !shmem_test_all_vector(flags, (size_t)n, NULL, SHMEM_CMP_EQ, want);
    bad |= shmem_test_any_vector(flags, (size_t)n, NULL, SHMEM_CMP_NE, want) != SIZE_MAX;
    bad |= shmem_test_some_vector(flags, (size_t)n, idx, NULL, SHMEM_CMP_EQ, want) != (size_t)n;
    unsigned int u = 3;
    bad |= !shmem_test(&u, SHMEM_CMP_GT, 2u);
    short s = -1;
    bad |= !shmem_test(&s, SHMEM_CMP_LT, (short)0);
    free(idx);
    free(status);
    free(want);
    return bad;
}

/* shmem_put_signal / shmem_put_signal_nbi generics, with and without a context. */
int c11_generic_put_signal(long *dst, uint64_t *sig, int pe)
{
    long src[4] = {1, 2, 3, 4};
    shmem_put_signal(dst, src, 4, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_put_signal(SHMEM_CTX_DEFAULT, dst, src, 4, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_put_signal_nbi(dst, src, 4, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, dst, src, 4, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_quiet();
    return 0;
}

#include <pshmem.h>

/* The profiling names are the same routines. */
int pshmem_names_work(long *flag, int pe)
{
    int bad = pshmem_my_pe() != shmem_my_pe() || pshmem_n_pes() != shmem_n_pes();
    pshmem_long_p(flag, 9, pe);
    pshmem_quiet();
    pshmem_long_wait_until(flag, SHMEM_CMP_EQ, 9);
    bad |= !pshmem_long_test(flag, SHMEM_CMP_EQ, 9);
    return bad;
}
