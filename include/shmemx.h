/*
 * shmemx.h: shmemq extensions to OpenSHMEM.
 *
 *  - OpenSHMEM queues (normative API: docs/queues.md and the project spec):
 *      communication queues buffer put/get/atomic operations per target PE and issue
 *      them as bursts (few MPI calls carrying many operations); data queues buffer
 *      bytes per destination PE and exchange them collectively with MPI_Alltoallv.
 *  - Byte-level block-strided RMA (shmemx_iputmem/igetmem) and strided queue pushes.
 *  - MPI interoperability (shmemx_team_get_mpi_comm).
 *
 * Every queue routine returns 0 on success or a negative SHMEM_QUEUE_ERR_* code
 * (shmem_queue_progress returns a count >= 0 on success); shmemx_queue_strerror
 * names each code.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Queue types and constants ---- */
typedef struct shmem_queue_s *shmem_queue_t; /* opaque handle */

typedef enum { SHMEM_QUEUE_EXCLUSIVE = 0, SHMEM_QUEUE_SHARED = 1 } shmem_queue_thread_t;
typedef enum { SHMEM_QUEUE_COMM = 0, SHMEM_QUEUE_DATA = 1 } shmem_queue_type_t;
typedef enum { SHMEM_PE_SAME = 0, SHMEM_PE_ALL = 1 } shmem_pe_type_t;
typedef enum {
    SHMEM_OP_PUT = 0,
    SHMEM_OP_GET = 1,
    SHMEM_OP_ATOMIC_ADD = 2,
    SHMEM_OP_ATOMIC_INC = 3,
    SHMEM_OP_ATOMIC_SET = 4,
    SHMEM_OP_ATOMIC_AND = 5,
    SHMEM_OP_ATOMIC_OR = 6,
    SHMEM_OP_ATOMIC_XOR = 7,
    SHMEM_OP_ANY = 255 /* config only: the queue carries mixed operations */
} shmem_op_type_t;

#define SHMEM_QUEUE_MAX_TIMEOUT (-1.0) /* never flush on a timer */
#define SHMEM_QUEUE_ANY_PE (-1)        /* data queues: every source PE */

typedef struct shmem_queue_config {
    shmem_queue_type_t qtype;
    shmem_queue_thread_t thread_model;
    uint64_t max_elems;     /* comm: most operations outstanding at once (0: default) */
    uint64_t max_bytes;     /* data: bytes of outgoing AND of incoming room per peer PE (0: default) */
    size_t data_elem_size;  /* data: bytes per element (0 means 1) */
    double timeout_flush;   /* seconds after which a queued operation is issued without
                               an explicit flush; SHMEM_QUEUE_MAX_TIMEOUT: never; 0: at once */
    shmem_op_type_t op_type; /* comm: the one operation this queue carries, or SHMEM_OP_ANY */
    shmem_pe_type_t pe_type; /* comm: SHMEM_PE_SAME if every push targets one PE (a hint) */
} shmem_queue_config_t;

typedef struct shmem_queue_attr {
    uint64_t queue_id;          /* unique per PE among live queues */
    uint64_t outstanding_elems; /* pushed, not yet complete */
    uint64_t available_elems;   /* comm: max_elems - outstanding; data: free outgoing elements summed over peers */
} shmem_queue_attr_t;

/* ---- Return codes: 0 is success, every error is negative ---- */
#define SHMEM_QUEUE_SUCCESS 0
#define SHMEM_QUEUE_ERR_ARG (-1)      /* bad argument: NULL, PE out of range, bad config... */
#define SHMEM_QUEUE_ERR_FULL (-2)     /* no room: progress/flush, then retry */
#define SHMEM_QUEUE_ERR_EMPTY (-3)    /* pop: fewer elements available than asked for */
#define SHMEM_QUEUE_ERR_OVERFLOW (-4) /* global flush: some data did not fit and stays outgoing */
#define SHMEM_QUEUE_ERR_NOMEM (-5)    /* out of memory */
#define SHMEM_QUEUE_ERR_TYPE (-6)     /* op not allowed for this queue or element type */
#define SHMEM_QUEUE_ERR_STATE (-7)    /* wrong state: not initialised, destroyed handle, wrong kind */
#define SHMEM_QUEUE_ERR_MPI (-8)      /* the MPI library reported an error */
#define SHMEM_QUEUE_ERR_DATALOSS (-9) /* destroy: data was still queued and has been dropped */
#define SHMEM_QUEUE_ERR_ADDR (-10)    /* address not in symmetric memory where it must be */
#define SHMEM_QUEUE_ERR_THREAD (-11)  /* SHMEM_QUEUE_SHARED needs SHMEM_THREAD_MULTIPLE */

const char *shmemx_queue_strerror(int rc);

/* ---- Communication queues (local, one-sided) ---- */
int shmem_queue_comm_create(shmem_queue_t *queue, const shmem_queue_config_t *qconfig);
int shmem_queue_comm_destroy(shmem_queue_t queue);
int shmem_query_attr(shmem_queue_t queue, shmem_queue_attr_t *attr);
int shmem_query_size(shmem_queue_t queue, size_t *size);
int shmem_queue_comm_pushmem(shmem_queue_t q, void *dest, const void *src, size_t nbytes, int pe,
                             shmem_op_type_t op);
#define SHMEMQ_DECL_QPUSH(T, N)                                                           \
    int pshmem_##N##_queue_comm_push(shmem_queue_t q, T *dest, const T *src, size_t nelems, \
                                     int pe, shmem_op_type_t op);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_QPUSH)
#undef SHMEMQ_DECL_QPUSH
#if defined(SHMEMQ_NO_INLINE) || defined(SHMEMQ_BUILDING_LIBRARY)
#define SHMEMQ_DECL_QPUSH(T, N)                                                          \
    int shmem_##N##_queue_comm_push(shmem_queue_t q, T *dest, const T *src, size_t nelems, \
                                    int pe, shmem_op_type_t op);
SHMEMQ_RMA_TYPES(SHMEMQ_DECL_QPUSH)
#undef SHMEMQ_DECL_QPUSH
#endif
/* Otherwise the typed pushes are static inline over the pshmem_ functions. */
#include <shmemq/queue_inline.h>
int shmem_queue_progress(shmem_queue_t queue);
int shmem_queue_local_flush(shmem_queue_t queue);

/* Strided PUT/GET in a comm queue: nblks blocks of blksize bytes, block starts
 * dst_stride/src_stride bytes apart (the shmemx_iputmem layout). */
int shmemx_queue_comm_push_strided(shmem_queue_t q, void *dest, const void *src,
                                   ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t blksize,
                                   size_t nblks, int pe, shmem_op_type_t op);

/* Per-queue counters (comm and data queues). SHMEMQ_STATS=1 prints them at destroy. */
typedef struct shmemx_queue_stats {
    uint64_t ops_pushed;   /* operations (comm) or elements (data) pushed */
    uint64_t bursts;       /* MPI calls / messages that carried queued operations */
    uint64_t bytes;        /* payload bytes moved */
    uint64_t combined_ops; /* operations merged into another before leaving */
    uint64_t flushes;      /* completed flushes */
    uint64_t full_returns; /* pushes refused with SHMEM_QUEUE_ERR_FULL */
} shmemx_queue_stats_t;
int shmemx_queue_stats(shmem_queue_t queue, shmemx_queue_stats_t *stats);

/* Memory and traffic of one queue (comm or data): docs/queues.md, "Usage and the memory
 * model", says what each field counts. Returns 0, SHMEM_QUEUE_ERR_ARG (NULL handle or
 * usage) or SHMEM_QUEUE_ERR_STATE (not a live queue). */
enum {
    SHMEMX_QUEUE_MODE_COMM_RMA = 1,  /* comm queue, MPI RMA bursts off the node (default) */
    SHMEMX_QUEUE_MODE_COMM_AM = 2,   /* comm queue, active-message bursts (SHMEMQ_COMM_PATH=am) */
    SHMEMX_QUEUE_MODE_DATA_FLAT = 3, /* data queue, one room per peer each way, alltoallv */
    SHMEMX_QUEUE_MODE_DATA_ROUTED = 4, /* data queue, two hops through node porters
                                         (SHMEMQ_DATAQ_ROUTE=2hop): a buffer per porter */
    SHMEMX_QUEUE_MODE_DATA_NBX = 5,   /* data queue, rooms as FLAT, sparse (NBX) exchange
                                         (SHMEMQ_DATAQ_EXCHANGE): no per-peer counts */
    SHMEMX_QUEUE_MODE_DATA_ROUTED3 = 6, /* data queue, three hops (SHMEMQ_DATAQ_ROUTE=3hop):
                                          a buffer per porter, ~P/n^2 peers off the node */
    SHMEMX_QUEUE_MODE_COMM_NODE = 7    /* comm queue routed by node (SHMEMQ_QUEUE_ROUTE=node):
                                          one slot per node peer and per other node */
};
typedef struct shmemx_queue_usage {
    uint32_t mode;          /* SHMEMX_QUEUE_MODE_* */
    uint32_t npes;          /* PEs the queue reaches (comm: all; data: its team) */
    uint64_t held_bytes;    /* bytes queued now (comm: records not yet issued; data:
                               outgoing not yet moved + arrived not yet popped) */
    uint64_t meta_bytes;    /* the queue object and its per-PE arrays */
    uint64_t scratch_bytes; /* comm: burst scratch mapping + node summing array; data: 0 */
    uint64_t buffer_bytes;  /* bytes of the buffers allocated now */
    uint64_t buffers;       /* buffers allocated now (comm: chunks; data: rooms) */
    uint64_t msgs_last;     /* messages (bursts; data: per-peer transfers) in the last flush */
    uint64_t bytes_last;    /* payload bytes in the last flush */
    uint64_t peers_last;    /* distinct PEs sent to in the last flush (self included) */
    uint64_t msgs_total, bytes_total, peers_total; /* the same since create */
    uint64_t flushes;       /* completed flushes */
} shmemx_queue_usage_t;
int shmemx_queue_usage(shmem_queue_t queue, shmemx_queue_usage_t *usage);

/* The memory model: what a queue made with `config` in `mode` (SHMEMX_QUEUE_MODE_*)
 * holds on one PE of a job of npes PEs, node_pes per node (docs/queues_design.md,
 * "Memory model"). Local, no communication; the calling process's settings (chunk
 * sizes, cache size) are used. ARG on a NULL pointer, a bad mode or PE counts. */
typedef struct shmemx_queue_model {
    uint64_t meta_bytes;         /* at create */
    uint64_t track_bytes;        /* added to meta_bytes by the first message sent */
    uint64_t scratch_bytes;      /* at create (comm: address space until bursts touch it) */
    uint64_t scratch_once_bytes; /* added to scratch by the first summed node burst */
    uint64_t buffer_bytes;       /* one buffer */
    uint64_t min_buffers;        /* buffers at create */
    uint64_t max_buffers;        /* most buffers at once */
    uint64_t max_total_bytes;    /* meta + track + scratch + once + max_buffers x buffer */
} shmemx_queue_model_t;
int shmemx_queue_model(const shmem_queue_config_t *config, int mode, int npes, int node_pes,
                       shmemx_queue_model_t *model);

#ifdef SHMEMQ_HAVE_GENERIC
#define SHMEMQ_G_QPUSH(T, N) , T *: shmem_##N##_queue_comm_push
#define shmem_queue_comm_push(q, dest, src, nelems, pe, op) \
    _Generic((dest)SHMEMQ_GENERIC_RMA_TYPES(SHMEMQ_G_QPUSH))(q, dest, src, nelems, pe, op)
#endif

/* ---- Data queues (collective over a team) ---- */
int shmem_queue_data_create(shmem_queue_t *queue, const shmem_queue_config_t *qconfig,
                            shmem_team_t team);
int shmem_queue_data_push(shmem_queue_t queue, const void *src, size_t nelems, int pe);
int shmem_queue_data_pop(shmem_queue_t queue, void *dest, size_t nelems, int pe);
int shmem_queue_global_flush(shmem_queue_t queue);
int shmem_query_data_size(shmem_queue_t queue, size_t *incoming, size_t *outgoing, int pe);
int shmem_queue_data_progress(shmem_queue_t queue, shmem_team_t team);
int shmem_queue_data_destroy(shmem_queue_t *queue, shmem_team_t team);

/* ---- Byte-level block-strided RMA: nblks blocks of blksize bytes; consecutive blocks
 * start dst_stride / src_stride bytes apart (structures, mixed types) ---- */
void shmemx_iputmem(void *dest, const void *source, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                    size_t blksize, size_t nblks, int pe);
void shmemx_igetmem(void *dest, const void *source, ptrdiff_t dst_stride, ptrdiff_t src_stride,
                    size_t blksize, size_t nblks, int pe);

/* ---- MPI interoperability ---- */
/* A duplicate of the team's communicator; the caller may use it and must MPI_Comm_free it. */
int shmemx_team_get_mpi_comm(shmem_team_t team, MPI_Comm *comm);

#ifdef __cplusplus
}
#endif

/* inline fast paths of data-queue push/pop (shmem_queue_data_push/_pop become macros) */
#include "shmemq/dataq.h"

#endif /* SHMEMX_H */
