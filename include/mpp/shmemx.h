/*
 * mpp/shmemx.h: the <mpp/...> spelling of <shmemx.h> (shmemq's extensions and OpenSHMEM
 * queues), for programs written against implementations that install it there.
 */
#ifndef SHMEMQ_MPP_SHMEMX_H
#define SHMEMQ_MPP_SHMEMX_H
#include "../shmemx.h"
#endif
