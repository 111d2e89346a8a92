/* test_strided_generic.c: the C11 generic selections shmem_iput/iget/ibput/ibget, with
 * and without a context (C only; called from test_strided.cc). */
#include <shmem.h>

#ifndef SHMEMQ_HAVE_GENERIC
#error "C11 generic selections expected in a C11 build"
#endif

void strided_generic_put(double *dest, const double *src, long *ldest, const long *lsrc, int pe)
{
    shmem_iput(dest, src, 2, 1, 4, pe);                        /* double, 6 args */
    shmem_iput(SHMEM_CTX_DEFAULT, dest + 1, src + 4, 2, 1, 4, pe); /* ctx, 7 args */
    shmem_ibput(ldest, lsrc, 3, 2, 2, 3, pe);                   /* long, 7 args */
    shmem_ibput(SHMEM_CTX_DEFAULT, ldest + 2, lsrc + 6, 3, 1, 1, 3, pe); /* ctx, 8 args */
}

void strided_generic_get(double *dest, const double *src, long *ldest, const long *lsrc, int pe)
{
    shmem_iget(dest, src, 1, 2, 4, pe);
    shmem_iget(SHMEM_CTX_DEFAULT, dest + 4, src + 1, 1, 2, 4, pe);
    shmem_ibget(ldest, lsrc, 2, 3, 2, 3, pe);
    shmem_ibget(SHMEM_CTX_DEFAULT, ldest + 6, lsrc + 2, 1, 3, 1, 3, pe);
}
