/* test_commq_generic.c: the C11 generic shmem_queue_comm_push (C only: _Generic). */
#include <shmemx.h>

/* Pushes one add of each kind through the generic macro; returns the first error. */
int commq_generic_push(shmem_queue_t q, long *l, uint64_t *u, double *d, int pe)
{
    long lv = 5;
    uint64_t uv = 7;
    double dv = 2.5;
    int rc = shmem_queue_comm_push(q, l, &lv, 1, pe, SHMEM_OP_ATOMIC_ADD);
    if (rc == 0)
        rc = shmem_queue_comm_push(q, u, &uv, 1, pe, SHMEM_OP_ATOMIC_ADD);
    if (rc == 0)
        rc = shmem_queue_comm_push(q, d, &dv, 1, pe, SHMEM_OP_ATOMIC_SET);
    /* a double cannot be added: the typed routine the macro picked says so */
    if (rc == 0 && shmem_queue_comm_push(q, d, &dv, 1, pe, SHMEM_OP_ATOMIC_ADD) != SHMEM_QUEUE_ERR_TYPE)
        rc = -100;
    return rc;
}
