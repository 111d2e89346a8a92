/* shmemq/lock.h: distributed locking (OpenSHMEM 1.5 section 9.11). The lock is a
 * symmetric long initialised to 0 on every PE; docs/p2p.md describes the queue lock.
 * Included by shmem.h; do not include directly. */
#ifndef SHMEMQ_LOCK_H
#define SHMEMQ_LOCK_H

#ifdef __cplusplus
extern "C" {
#endif

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
/* 0 when the lock was acquired, 1 when another PE holds it. */
int shmem_test_lock(long *lock);

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_LOCK_H */
