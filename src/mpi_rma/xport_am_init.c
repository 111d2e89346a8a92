/* xport_am_init.c: whether off-node operations take the AM transport (xport_am.h), decided
 * once at init the same on every PE, and its set-up and shutdown: the communicator, the
 * server map, the origin state (xport_am.c) and the server (xport_am_serve.c).
 * docs/design.md, "When it is taken", has the rule. */
#include "xport.h"
#include "xport_am_proto.h"

am_state_t shmemi_am = {.comm = MPI_COMM_NULL};

static int setting_am(void)
{
    const char *e = getenv("SHMEMQ_OFFNODE");
    return !(e && strcmp(e, "mpi") == 0); /* anything else: the default (settings.c) */
}

int shmemi_am_init(void)
{
    int spans = shmemi.node_size < shmemi.n_pes;
    int mapped = shmemi.node_heap_ok && shmemi.node_data_ok;
    int leader = shmemi.my_pe;
    SHMEMI_MPI_CHECK("shmem_init",
                     MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shmemi.node_comm));
    /* A server must serve while its PEs compute, spin or wait inside MPI (a barrier of the
     * program's own): that takes a thread on it, the node's progress agent. Without one on
     * every node a PE waiting in MPI_Allreduce would hang its peers' atomics, where MPI RMA
     * completes them (MPI progresses inside the Allreduce). */
    int served = leader != shmemi.my_pe || shmemi_agent_running();
    int want[2] = {spans && mapped && setting_am(), served}, all[2] = {0, 0};
    /* every PE must agree: the choice decides who sends what where */
    SHMEMI_MPI_CHECK("shmem_init", MPI_Allreduce(want, all, 2, MPI_INT, MPI_MIN, shmemi.comm));
    if (!spans)
        snprintf(shmemi_am.why, sizeof shmemi_am.why, "none (one-node job)");
    else if (!mapped)
        snprintf(shmemi_am.why, sizeof shmemi_am.why,
                 "MPI RMA (node peers' memory not mapped, so no node can apply for its PEs)");
    else if (!setting_am())
        snprintf(shmemi_am.why, sizeof shmemi_am.why, "MPI RMA (SHMEMQ_OFFNODE=mpi)");
    else if (!all[0])
        snprintf(shmemi_am.why, sizeof shmemi_am.why, "MPI RMA (another PE could not take AM)");
    else if (!all[1])
        snprintf(shmemi_am.why, sizeof shmemi_am.why,
                 "MPI RMA (a node has no progress agent to serve it while its PEs wait inside "
                 "MPI; SHMEMQ_OFFNODE=am needs one)");
    else
        snprintf(shmemi_am.why, sizeof shmemi_am.why,
                 "AM to the target node's leader, applied there with CPU atomics (SHMEMQ_OFFNODE=am: "
                 "passive-target MPI RMA needs the target's CPU on the MPIs measured)");
    all[0] = all[0] && all[1];
    shmemi.offnode_am = all[0];
    if (!all[0])
        return 0;
    /* every PE's server and its rank on its node (one allgather of pairs, then split) */
    int mine[2] = {leader, 0}, *pairs = malloc(2 * sizeof(int) * (size_t)shmemi.n_pes);
    shmemi_am.server = malloc(sizeof(int) * (size_t)shmemi.n_pes);
    shmemi_am.lrank = malloc(sizeof(int) * (size_t)shmemi.n_pes);
    if (!pairs || !shmemi_am.server || !shmemi_am.lrank)
        shmemi_fatal("shmem_init", "out of memory");
    MPI_Comm_rank(shmemi.node_comm, &mine[1]);
    SHMEMI_MPI_CHECK("shmem_init", MPI_Allgather(mine, 2, MPI_INT, pairs, 2, MPI_INT, shmemi.comm));
    shmemi_am.lrank_max = 0;
    for (int p = 0; p < shmemi.n_pes; p++) {
        shmemi_am.server[p] = pairs[2 * p];
        shmemi_am.lrank[p] = pairs[2 * p + 1];
        if (shmemi_am.lrank[p] > shmemi_am.lrank_max)
            shmemi_am.lrank_max = shmemi_am.lrank[p];
    }
    free(pairs);
    SHMEMI_MPI_CHECK("shmem_init", MPI_Comm_dup(shmemi.comm, &shmemi_am.comm));
    MPI_Comm_set_errhandler(shmemi_am.comm, MPI_ERRORS_RETURN);
    int ub_ok = 0, *ub = NULL;
    MPI_Comm_get_attr(shmemi_am.comm, MPI_TAG_UB, &ub, &ub_ok);
    if (ub_ok && ub && *ub < AM_NSLOTS)
        shmemi_fatal("shmem_init", "MPI_TAG_UB %d is below %d", *ub, AM_NSLOTS);
    shmemi_am_origin_init();
    shmemi_am.is_server = leader == shmemi.my_pe;
    return shmemi_am.is_server ? shmemi_am_serve_init() : 0;
}

void shmemi_am_fini(void)
{
    if (!shmemi.offnode_am)
        return;
    shmemi_am_origin_fini();
    if (shmemi_am.is_server)
        shmemi_am_serve_fini();
    MPI_Comm_free(&shmemi_am.comm);
    free(shmemi_am.server);
    free(shmemi_am.lrank);
    shmemi_am.server = NULL;
    shmemi_am.lrank = NULL;
    shmemi_am.is_server = 0;
    shmemi.offnode_am = 0;
}

int shmemi_am_server_of(int pe)
{
    return shmemi_am.server[pe];
}

int shmemi_am_lrank_of(int pe)
{
    return shmemi_am.lrank[pe];
}

int shmemi_am_lrank_max(void)
{
    return shmemi_am.lrank_max;
}

int shmemi_am_on(void)
{
    return shmemi.offnode_am;
}

void shmemi_am_describe(char *buf, size_t n)
{
    snprintf(buf, n, "%s%s", shmemi_am.why[0] ? shmemi_am.why : "not decided yet",
             shmemi.offnode_am ? "; non-fetching atomics combined per target PE where the "
                                 "node agent runs (xport_am_comb.c)"
                               : "");
}
