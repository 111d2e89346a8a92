/* test_commq_noinline.c: the typed pushes as plain library calls (SHMEMQ_NO_INLINE),
 * beside test_commq_iface.cc, which gets the inline ones from shmemq/queue_inline.h. */
#define SHMEMQ_NO_INLINE 1
#include <shmemx.h>

int commq_noinline_int64_push(shmem_queue_t q, int64_t *dest, const int64_t *src, size_t nelems,
                              int pe, shmem_op_type_t op)
{
    return shmem_int64_queue_comm_push(q, dest, src, nelems, pe, op);
}

int commq_noinline_uint32_push(shmem_queue_t q, uint32_t *dest, const uint32_t *src,
                               size_t nelems, int pe, shmem_op_type_t op)
{
    return shmem_uint32_queue_comm_push(q, dest, src, nelems, pe, op);
}
