/* shmemq/signal.h: included by shmem.h; do not include directly. */
#ifndef SHMEMQ_SIGNAL_H
#define SHMEMQ_SIGNAL_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_SIGNAL_H */
