/* test_coll_generic.c: the C11 generic selections of the team collectives (C only:
 * _Generic does not exist in C++). Returns the number of wrong results on this PE. */
#include <shmem.h>
#include <complex.h>

int coll_generic_selections(void);

int coll_generic_selections(void)
{
#ifndef SHMEMQ_HAVE_GENERIC
    return 1; /* a C11 compiler must get them */
#else
    int bad = 0, me = shmem_my_pe(), n = shmem_n_pes();
    long *l = shmem_malloc(4 * sizeof(long) * (size_t)n);
    long *r = shmem_malloc(4 * sizeof(long) * (size_t)n);
    double *d = shmem_malloc(2 * sizeof(double));
    double _Complex *z = shmem_malloc(2 * sizeof(double _Complex));
    unsigned *u = shmem_malloc(2 * sizeof(unsigned));
    l[0] = me + 1;
    bad += shmem_sum_reduce(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[0] != (long)n * (n + 1) / 2;
    bad += shmem_max_reduce(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[0] != n;
    bad += shmem_min_reduce(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[0] != 1;
    bad += shmem_sum_inscan(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[0] != (long)(me + 1) * (me + 2) / 2;
    bad += shmem_sum_exscan(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[0] != (long)me * (me + 1) / 2;
    d[0] = 0.5;
    bad += shmem_prod_reduce(SHMEM_TEAM_WORLD, d + 1, d, 1) != 0;
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= 0.5;
    bad += d[1] != p;
    z[0] = 1.0 + 2.0 * I;
    bad += shmem_sum_reduce(SHMEM_TEAM_WORLD, z + 1, z, 1) != 0 || creal(z[1]) != n ||
           cimag(z[1]) != 2.0 * n;
    u[0] = 1u << (me % 32);
    bad += shmem_or_reduce(SHMEM_TEAM_WORLD, u + 1, u, 1) != 0;
    bad += shmem_and_reduce(SHMEM_TEAM_WORLD, u + 1, u, 1) != 0;
    bad += shmem_xor_reduce(SHMEM_TEAM_WORLD, u + 1, u, 1) != 0;
    /* signed fixed-width types select their bitwise reductions too */
    int32_t *i32 = shmem_malloc(2 * sizeof(int32_t));
    int64_t *i64 = shmem_malloc(2 * sizeof(int64_t));
    i32[0] = 3 | (1 << (me % 30 + 2));
    i64[0] = (int64_t)1 << (me % 62);
    bad += shmem_and_reduce(SHMEM_TEAM_WORLD, i32 + 1, i32, 1) != 0 ||
           i32[1] != (n == 1 ? i32[0] : 3);
    bad += shmem_or_reduce(SHMEM_TEAM_WORLD, i64 + 1, i64, 1) != 0 ||
           i64[1] != (int64_t)((UINT64_C(1) << n) - 1);
    bad += shmem_xor_reduce(SHMEM_TEAM_WORLD, i32 + 1, i32, 1) != 0;
    shmem_barrier_all();
    shmem_free(i64);
    shmem_free(i32);
    bad += shmem_broadcast(SHMEM_TEAM_WORLD, r, l, 1, n - 1) != 0 || r[0] != n;
    bad += shmem_fcollect(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[n - 1] != n;
    bad += shmem_collect(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[0] != 1;
    for (int j = 0; j < n; j++)
        l[j] = me * 100 + j;
    bad += shmem_alltoall(SHMEM_TEAM_WORLD, r, l, 1) != 0 || r[n - 1] != (n - 1) * 100 + me;
    bad += shmem_alltoalls(SHMEM_TEAM_WORLD, r, l, 1, 1, 1) != 0 || r[0] != me;
    shmem_barrier_all();
    shmem_free(u);
    shmem_free(z);
    shmem_free(d);
    shmem_free(r);
    shmem_free(l);
    return bad;
#endif
}
