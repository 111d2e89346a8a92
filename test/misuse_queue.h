/* misuse_queue.h: the small data queue the misuse programs (promises.c, agree_watchdog.c)
 * build their cases on: over SHMEM_TEAM_WORLD, EXCLUSIVE, longs, 1 KiB per peer. A
 * failed create exits with status 3: the set-up failed, not the case under test. */
#ifndef SHMEMQ_TEST_MISUSE_QUEUE_H
#define SHMEMQ_TEST_MISUSE_QUEUE_H

#include <shmem.h>
#include <shmemx.h>
#include <stdlib.h>
#include <string.h>

static inline shmem_queue_t misuse_data_queue(void)
{
    shmem_queue_config_t c;
    memset(&c, 0, sizeof c);
    c.qtype = SHMEM_QUEUE_DATA;
    c.thread_model = SHMEM_QUEUE_EXCLUSIVE;
    c.data_elem_size = sizeof(long);
    c.max_bytes = 1024;
    shmem_queue_t q = NULL;
    if (shmem_queue_data_create(&q, &c, SHMEM_TEAM_WORLD) != 0)
        exit(3);
    return q;
}

#endif
