/* shmemq/p2p.h: included by shmem.h; do not include directly. */
#ifndef SHMEMQ_P2P_H
#define SHMEMQ_P2P_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* SHMEMQ_P2P_H */
