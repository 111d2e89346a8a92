/* shmemq/amo.h: included by shmem.h; do not include directly. */
#ifndef SHMEMQ_AMO_H
#define SHMEMQ_AMO_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_AMO_H */
