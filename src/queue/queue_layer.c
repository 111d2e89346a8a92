/* queue_layer.c: the queue layer's start-up and shutdown, registered with the runtime
 * (module.c), and the one report of an MPI failure inside a queue routine.
 *
 * Registration is a constructor, so the runtime never names a queue routine:
 *   - shared library: every constructor of libshmemq.so runs when it is loaded, before
 *     main and so before shmem_init;
 *   - static library: the linker takes an object from libshmemq.a only when something
 *     references it, and nothing references a constructor. So this file also holds
 *     shmemi_queue_mpi_err, which every queue source calls (comm queues through
 *     cq_mpi_err, data queues directly; sessions use the comm queue): a program that
 *     links any queue object links this one, and with it the registration. A program
 *     that references no queue routine links none of them: it creates no queue, sends
 *     no queue traffic, and (same binary on every PE) neither do its peers.
 * Collective order stays identical on every PE: the modules' steps run at fixed points
 * of shmem_init/shmem_finalize in registration order, which is this file's order, and
 * the barrier between DRAIN and STOP is the runtime's, made whichever modules exist.
 * The only collective a module makes is the data queues' release, over their own
 * teams, whose members all created those queues. */
#include "queue.h"

static const shmemi_module_t sessions = {
    .name = "1.6 sessions",
    .fini = {[SHMEMI_FINI_COMPLETE] = shmemi_queue_session_fini},
};

static const shmemi_module_t data_queues = {
    .name = "data queues",
    .fini = {[SHMEMI_FINI_COLLECTIVE] = shmemi_queue_data_fini},
};

/* The comm queues' settings read once (the budget), then the receive engine. */
static void comm_queues_init(void)
{
    cq_budget_init();
    cq_am_init();
}

static const shmemi_module_t comm_queues = {
    .name = "comm queues (AM engine)",
    .init = comm_queues_init,
    .fini = {[SHMEMI_FINI_DRAIN] = cq_am_drain, [SHMEMI_FINI_STOP] = cq_am_stop},
};

__attribute__((constructor)) static void queue_layer_register(void)
{
    shmemi_module_register(&sessions);
    shmemi_module_register(&data_queues);
    shmemi_module_register(&comm_queues);
}

int shmemi_queue_mpi_err(const char *routine, const char *call, int rc)
{
    char err[MPI_MAX_ERROR_STRING];
    shmemi_debug(routine, "%s failed: %s", call, shmemi_mpi_strerror(rc, err));
    return SHMEM_QUEUE_ERR_MPI;
}
