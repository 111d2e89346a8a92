/* finalize_leaks.c: a program that never destroys a team, a context on it, a data queue
 * (with data still queued), a legacy active-set communicator and a batch session, then
 * calls shmem_finalize. It must finish cleanly (no crash, no MPI error); under valgrind
 * the library's own allocations for these must be freed. Exit 0 when the data moved
 * before finalize arrived. Run by hand (docs/sessions.md):
 *   mpiexec -n 2 valgrind --leak-check=full ./test/finalize_leaks */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

static long psync[SHMEM_BARRIER_SYNC_SIZE];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team);
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_create_ctx(team, 0, &ctx);

    shmem_queue_config_t cfg = {0};
    cfg.qtype = SHMEM_QUEUE_DATA;
    cfg.data_elem_size = sizeof(int);
    shmem_queue_t q = NULL;
    int rc = shmem_queue_data_create(&q, &cfg, SHMEM_TEAM_WORLD);
    if (rc != 0) {
        printf("PE %d: data queue create: %s\n", me, shmemx_queue_strerror(rc));
        return 1;
    }
    int v = me;
    shmem_queue_data_push(q, &v, 1, (me + 1) % npes); /* left queued: lost at finalize */

    if (npes > 2 && me < npes - 1) /* PEs 0..npes-2: caches a communicator */
        shmem_barrier(0, 0, npes - 1, psync);

    static long x;
    if (ctx != SHMEM_CTX_INVALID) {
        shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
        shmem_ctx_long_atomic_add(ctx, &x, 1, (me + 1) % npes); /* completed by finalize */
    }
    shmem_finalize();
    printf("PE %d: finalized\n", me);
    return 0;
}
