/*
 * data_query_stub.c: the queue routines shared by both kinds of queue, for data queues
 * only, so this branch builds and tests alone.
 *
 * REMOVED WHEN MERGED WITH THE COMM QUEUE DISPATCH: the comm-queue code (queue_error.c
 * and its query routines) owns shmem_query_attr, shmem_query_size, shmemx_queue_stats
 * and shmemx_queue_strerror; it calls shmemi_dataq_query_attr / _query_size /
 * shmemi_dataq_stats when shmemi_is_dataq(queue) (first uint32 == SHMEMI_DATAQ_MAGIC).
 */
#include "data_queue.h"

int shmem_query_attr(shmem_queue_t queue, shmem_queue_attr_t *attr)
{
    if (!shmemi_is_dataq(queue)) {
        shmemi_debug("shmem_query_attr", "not a live queue");
        return queue ? SHMEM_QUEUE_ERR_STATE : SHMEM_QUEUE_ERR_ARG;
    }
    return shmemi_dataq_query_attr(queue, attr);
}
SHMEMI_PROFILE(shmem_query_attr)

int shmem_query_size(shmem_queue_t queue, size_t *size)
{
    if (!shmemi_is_dataq(queue)) {
        shmemi_debug("shmem_query_size", "not a live queue");
        return queue ? SHMEM_QUEUE_ERR_STATE : SHMEM_QUEUE_ERR_ARG;
    }
    return shmemi_dataq_query_size(queue, size);
}
SHMEMI_PROFILE(shmem_query_size)

int shmemx_queue_stats(shmem_queue_t queue, shmemx_queue_stats_t *stats)
{
    if (!shmemi_is_dataq(queue))
        return queue ? SHMEM_QUEUE_ERR_STATE : SHMEM_QUEUE_ERR_ARG;
    return shmemi_dataq_stats(queue, stats);
}
SHMEMI_PROFILE(shmemx_queue_stats)

const char *shmemx_queue_strerror(int rc)
{
    switch (rc) {
    case SHMEM_QUEUE_SUCCESS: return "success";
    case SHMEM_QUEUE_ERR_ARG: return "invalid argument";
    case SHMEM_QUEUE_ERR_FULL: return "queue full";
    case SHMEM_QUEUE_ERR_EMPTY: return "not enough data to pop";
    case SHMEM_QUEUE_ERR_OVERFLOW: return "incoming room overflowed; data stays outgoing";
    case SHMEM_QUEUE_ERR_NOMEM: return "out of memory";
    case SHMEM_QUEUE_ERR_TYPE: return "operation or type not allowed on this queue";
    case SHMEM_QUEUE_ERR_STATE: return "wrong state (destroyed queue or wrong kind)";
    case SHMEM_QUEUE_ERR_MPI: return "MPI error";
    case SHMEM_QUEUE_ERR_DATALOSS: return "queued data was dropped";
    case SHMEM_QUEUE_ERR_ADDR: return "address not symmetric";
    case SHMEM_QUEUE_ERR_THREAD: return "SHMEM_QUEUE_SHARED needs SHMEM_THREAD_MULTIPLE";
    default: return rc > 0 ? "success (count)" : "unknown queue error";
    }
}
SHMEMI_PROFILE(shmemx_queue_strerror)
