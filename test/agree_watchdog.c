/* agree_watchdog.c: one PE cannot take part in a collective (it passes a NULL queue
 * handle, or SHMEM_TEAM_INVALID), the others wait for it. Run by test/agree_watchdog.sh
 * under SHMEM_DEBUG=1 SHMEMQ_WATCHDOG_SECONDS=2: the waiting PEs' watchdog must name
 * the routine and the missing PE and end the job with a nonzero status.
 * Usage: agree_watchdog queue|team first|last */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <string.h>

#include "misuse_queue.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s queue|team first|last\n", argv[0]);
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int bad = strcmp(argv[2], "last") == 0 ? n - 1 : 0;
    if (strcmp(argv[1], "queue") == 0) {
        shmem_queue_t q = misuse_data_queue();
        long v = me;
        shmem_queue_data_push(q, &v, 1, (me + 1) % n);
        int rc = shmem_queue_global_flush(me == bad ? NULL : q);
        printf("PE %d: shmem_queue_global_flush returned %d\n", me, rc);
        fflush(stdout);
    } else {
        /* A team of all PEs other than WORLD: the bad PE's barrier in shmem_finalize is
         * then on another communicator than the broadcast the others wait in. */
        shmem_team_t t;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t) != 0)
            return 3;
        long *src = shmem_malloc(sizeof(long)), *dst = shmem_malloc(sizeof(long));
        *src = me;
        int rc = shmem_long_broadcast(me == bad ? SHMEM_TEAM_INVALID : t, dst, src, 1, 0);
        printf("PE %d: shmem_long_broadcast returned %d\n", me, rc);
        fflush(stdout);
    }
    /* The bad PE goes on to a barrier (which waits for the others, which wait for it):
     * without the watchdog, nothing would ever end. (Not straight to shmem_finalize: a
     * PE that reaches finalize while its peers wait in a global flush of a queue it
     * still holds ends the job itself, SHMEM_DEBUG or not: test/promises.sh.) */
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
