/* shmemq/strided.h: included by shmem.h; do not include directly. */
#ifndef SHMEMQ_STRIDED_H
#define SHMEMQ_STRIDED_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_STRIDED_H */
