/* shmemq/coll.h: included by shmem.h; do not include directly. */
#ifndef SHMEMQ_COLL_H
#define SHMEMQ_COLL_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_COLL_H */
