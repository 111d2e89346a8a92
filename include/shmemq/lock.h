/* shmemq/lock.h: included by shmem.h; do not include directly. */
#ifndef SHMEMQ_LOCK_H
#define SHMEMQ_LOCK_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_LOCK_H */
