/* queue_error.c: the queue return codes (comm and data queues) and their names. (The
 * report of an MPI failure inside a queue routine is in queue_layer.c: see there why.) */
#include "queue.h"

const char *shmemx_queue_strerror(int rc)
{
    switch (rc) {
    case SHMEM_QUEUE_SUCCESS: return "success";
    case SHMEM_QUEUE_ERR_ARG: return "invalid argument";
    case SHMEM_QUEUE_ERR_FULL: return "queue full (progress or flush, then retry)";
    case SHMEM_QUEUE_ERR_EMPTY: return "not enough data to pop";
    case SHMEM_QUEUE_ERR_OVERFLOW: return "destination room overflowed (data stays outgoing)";
    case SHMEM_QUEUE_ERR_NOMEM: return "out of memory";
    case SHMEM_QUEUE_ERR_TYPE: return "operation not allowed for this queue or element type";
    case SHMEM_QUEUE_ERR_STATE: return "invalid state (not initialized, destroyed or wrong kind of queue)";
    case SHMEM_QUEUE_ERR_MPI: return "MPI error";
    case SHMEM_QUEUE_ERR_DATALOSS: return "queued data was dropped";
    case SHMEM_QUEUE_ERR_ADDR: return "address not in symmetric memory";
    case SHMEM_QUEUE_ERR_THREAD: return "SHMEM_QUEUE_SHARED needs SHMEM_THREAD_MULTIPLE";
    default: return rc > 0 ? "success (count)" : "unknown queue error";
    }
}
SHMEMI_PROFILE(shmemx_queue_strerror)
