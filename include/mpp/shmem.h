/*
 * mpp/shmem.h: the header path of SGI/Cray-era SHMEM and of other OpenSHMEM
 * implementations, so that programs that include <mpp/shmem.h> build unchanged.
 * Everything is in <shmem.h> (the one next to this directory).
 */
#ifndef SHMEMQ_MPP_SHMEM_H
#define SHMEMQ_MPP_SHMEM_H
#include "../shmem.h"
#endif
