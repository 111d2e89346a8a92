/* init.c: library setup, exit and query routines. */
#include "shmemi.h"
#include <stdarg.h>

shmemi_state_t shmemi;
shmem_team_t SHMEM_TEAM_WORLD = &shmemi.team_world;
shmem_team_t SHMEM_TEAM_SHARED = &shmemi.team_shared;
shmem_ctx_t SHMEM_CTX_DEFAULT = &shmemi.default_ctx;

static int to_mpi_thread_level(int level)
{
    switch (level) {
    case SHMEM_THREAD_SINGLE: return MPI_THREAD_SINGLE;
    case SHMEM_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
    case SHMEM_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
    default: return MPI_THREAD_MULTIPLE;
    }
}

static int from_mpi_thread_level(int level)
{
    if (level == MPI_THREAD_SINGLE) return SHMEM_THREAD_SINGLE;
    if (level == MPI_THREAD_FUNNELED) return SHMEM_THREAD_FUNNELED;
    if (level == MPI_THREAD_SERIALIZED) return SHMEM_THREAD_SERIALIZED;
    return SHMEM_THREAD_MULTIPLE;
}

/* set by shmem_global_exit: MPICH's MPI_Abort of a one-process job calls exit(), which
 * runs the handler below; a finalize then (collectives inside an abort) asserts in MPI */
static volatile int global_exiting;

static void atexit_finalize(void)
{
    if (shmemi.initialized && !shmemi.finalized && !shmemi.mpi_was_initialized &&
        !global_exiting) {
        int down = 0;
        MPI_Finalized(&down);
        if (!down)
            shmem_finalize();
    }
}

int shmem_init_thread(int requested, int *provided)
{
    static const char *routine = "shmem_init_thread";
    if (shmemi.initialized) {
        if (provided)
            *provided = shmemi.thread_level;
        return 0;
    }
    if (shmemi.finalized) {
        shmemi_bad_arg(routine, "OpenSHMEM cannot be initialized again after shmem_finalize");
        return -1;
    }
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        shmemi_bad_arg(routine, "invalid thread level %d", requested);
        return -1;
    }
    shmemi.debug = shmemi_env_bool("SHMEM_DEBUG", 0);
    shmemi_malloc_prime();

    int mpi_up = 0, mpi_level = MPI_THREAD_SINGLE;
    MPI_Initialized(&mpi_up);
    if (mpi_up) {
        shmemi.mpi_was_initialized = 1;
        MPI_Query_thread(&mpi_level);
    } else {
#ifdef SHMEMQ_MPI_IS_OPENMPI
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
        /* Open MPI 5.0.7's osc/rdma applies 64-bit MPI_BAND/BOR/BXOR accumulates wrongly
         * through its btl atomics (docs/design.md has the reproducer); its CAS-based
         * path is right. (5.x's osc/rdma creates windows for one process by itself, so
         * the component list is left to the site.) */
        setenv("OMPI_MCA_osc_rdma_acc_use_amo", "0", 0);
#else
        /* Debian's Open MPI 4 disables osc/pt2pt and osc/ucx, which leaves a
         * single-process job with no component that can MPI_Win_create (osc/sm only
         * allocates). Allow ucx and pt2pt as last resorts unless the user chose. */
        setenv("OMPI_MCA_osc", "sm,rdma,ucx,pt2pt", 0);
#endif
#endif
        /* the node agent enters MPI beside the program's threads; whether this job needs
         * one is known only after MPI_Init (the node layout), so ask unless it is off */
        int want = shmemi_agent_may_run() ? MPI_THREAD_MULTIPLE
                                          : to_mpi_thread_level(requested);
        if (MPI_Init_thread(NULL, NULL, want, &mpi_level) !=
            MPI_SUCCESS)
            shmemi_fatal(routine, "MPI_Init_thread failed");
    }
    int level = from_mpi_thread_level(mpi_level);
    shmemi.thread_level = level < requested ? level : requested;

    SHMEMI_MPI_CHECK(routine, MPI_Comm_dup(MPI_COMM_WORLD, &shmemi.comm));
    MPI_Comm_set_errhandler(shmemi.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(shmemi.comm, &shmemi.my_pe);
    MPI_Comm_size(shmemi.comm, &shmemi.n_pes);
    shmemi_settings_check(); /* one line for each setting that is not valid */

    if (shmemi_node_comm_init() != 0)
        shmemi_fatal(routine, "finding the PEs of this node failed");
    shmemi_agent_plan(); /* the modules below ask whether an agent will run */
    if (shmemi_heap_init() != 0 || shmemi_symseg_init() != 0) {
        MPI_Comm_free(&shmemi.comm);
        return -1; /* the init routines reported why, on every PE */
    }

    struct shmemq_team *w = &shmemi.team_world;
    w->comm = shmemi.comm;
    w->my_pe = shmemi.my_pe;
    w->n_pes = shmemi.n_pes;
    w->world_pe = NULL;
    w->config.num_contexts = 0;
    w->predefined = 1;

    struct shmemq_team *s = &shmemi.team_shared;
    shmemi_node_done();
    SHMEMI_MPI_CHECK(routine, MPI_Comm_dup(shmemi.node_comm, &s->comm));
    MPI_Comm_rank(s->comm, &s->my_pe);
    MPI_Comm_size(s->comm, &s->n_pes);
    s->config.num_contexts = 0;
    s->predefined = 1;
    if (shmemi_team_fill_world_map(s) != 0)
        shmemi_fatal(routine, "out of memory");

    struct shmemq_ctx *c = &shmemi.default_ctx;
    c->heap_win = shmemi.heap_win;
    c->data_win = shmemi.data_win;
    c->heap_adj = shmemi.heap_adj;
    c->team = w;
    c->options = 0;
    c->is_default = 1;

    SHMEMI_MPI_CHECK(routine, MPI_Comm_dup(shmemi.comm, &shmemi.queue_comm));
    MPI_Comm_set_errhandler(shmemi.queue_comm, MPI_ERRORS_RETURN);
    shmemi_modules_init(); /* the queue layer's engines (module.c) */
    shmemi.initialized = 1;
    if (shmemi_ctx_init() != 0)
        shmemi_fatal(routine, "creating context windows failed");
    static int atexit_done;
    if (!atexit_done) {
        atexit(atexit_finalize);
        atexit_done = 1;
    }
    (void)shmemi_agent_start(); /* a failure is said and the library goes on */
    if (shmemi.debug && shmemi.my_pe == 0) {
        char d[400];
        shmemi_agent_describe(d, sizeof d);
        shmemi_say("[shmemq PE 0] shmem_init: node agent %s\n", d);
    }
    /* the off-node transport: after the node mapping and the progress agent are known */
    if (shmemi_am_init() != 0)
        shmemi_fatal(routine, "setting up the off-node transport failed");
    if (shmemi.debug && shmemi.my_pe == 0) {
        char d[256];
        shmemi_node_describe(d, sizeof d);
        fprintf(stderr, "[shmemq PE 0] shmem_init: %s\n", d);
        shmemi_am_describe(d, sizeof d);
        fprintf(stderr, "[shmemq PE 0] shmem_init: off-node operations: %s\n", d);
    }
    SHMEMI_MPI_CHECK(routine, shmemi_barrier_comm(shmemi.comm));
    if (provided)
        *provided = shmemi.thread_level;
    return 0;
}
SHMEMI_PROFILE(shmem_init_thread)

void shmem_init(void)
{
    if (shmem_init_thread(SHMEM_THREAD_SINGLE, NULL) != 0)
        shmemi_fatal("shmem_init", "initialization failed");
}
SHMEMI_PROFILE(shmem_init)

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}
SHMEMI_PROFILE(start_pes)

void shmem_query_thread(int *provided)
{
    if (shmemi_check_init("shmem_query_thread") || provided == NULL)
        return;
    *provided = shmemi.thread_level;
}
SHMEMI_PROFILE(shmem_query_thread)

void shmem_finalize(void)
{
    static const char *routine = "shmem_finalize";
    if (!shmemi.initialized || shmemi.finalized)
        return;
    /* the registered modules (module.c has the steps; the queue layer registers) */
    shmemi_modules_fini(SHMEMI_FINI_COMPLETE); /* e.g. 1.6 sessions still active */
    /* Before the barrier: finalize's release of a live data queue counts as its destroy,
     * so a peer still inside shmem_queue_data_destroy (or a global flush) meets it here
     * instead of waiting forever while this PE waits in the barrier. */
    shmemi_modules_fini(SHMEMI_FINI_COLLECTIVE); /* e.g. data queues left alive */
    shmem_barrier_all();
    shmemi_coll_legacy_fini();
    shmemi_ctx_fini();
    shmemi_modules_fini(SHMEMI_FINI_DRAIN); /* e.g. comm queues left alive complete */
    /* every PE keeps applying incoming traffic (this barrier progresses) until every
     * PE's drain is done, so nothing arrives after the engines stop */
    (void)shmemi_barrier_comm(shmemi.comm);
    shmemi_am_fini(); /* nothing is sent any more: every PE quieted before the barrier */
    shmemi_modules_fini(SHMEMI_FINI_STOP);
    /* The agent serves until here: a PE in finalize's steps that do not progress (freeing
     * windows) is still served. Its hooks are gone (unregistered under the registry's
     * lock); it stops before the communicator it probes. */
    shmemi_agent_stop();
    MPI_Comm_free(&shmemi.queue_comm);
    shmemi_symseg_fini();
    shmemi_heap_fini();
    shmemi_node_fini();
    shmemi_team_fini(); /* after the data queues, which hold team pointers */
    MPI_Comm_free(&shmemi.team_shared.comm);
    free(shmemi.team_shared.world_pe);
    shmemi.team_shared.world_pe = NULL;
    SHMEMI_MPI_CHECK(routine, MPI_Comm_free(&shmemi.comm));
    shmemi.initialized = 0;
    shmemi.finalized = 1;
    if (!shmemi.mpi_was_initialized) {
        shmemi_mpit_fini();
        MPI_Finalize();
    }
}
SHMEMI_PROFILE(shmem_finalize)

void shmem_global_exit(int status)
{
    shmemi_let_report_out(); /* what the program printed reaches the launcher first */
    global_exiting = 1;
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status); /* MPI_Abort does not return; keep the compiler sure of it */
}
SHMEMI_PROFILE(shmem_global_exit)

int shmem_my_pe(void)
{
    return shmemi.initialized ? shmemi.my_pe : -1;
}
SHMEMI_PROFILE(shmem_my_pe)

int shmem_n_pes(void)
{
    return shmemi.initialized ? shmemi.n_pes : -1;
}
SHMEMI_PROFILE(shmem_n_pes)

int _my_pe(void)
{
    return shmem_my_pe();
}
SHMEMI_PROFILE(_my_pe)

int _num_pes(void)
{
    return shmem_n_pes();
}
SHMEMI_PROFILE(_num_pes)

int shmem_pe_accessible(int pe)
{
    return shmemi.initialized && pe >= 0 && pe < shmemi.n_pes;
}
SHMEMI_PROFILE(shmem_pe_accessible)

int shmem_addr_accessible(const void *addr, int pe)
{
    return shmem_pe_accessible(pe) && addr != NULL && shmemi_is_symmetric(addr, 1);
}
SHMEMI_PROFILE(shmem_addr_accessible)

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}
SHMEMI_PROFILE(shmem_info_get_version)

void shmem_info_get_name(char *name)
{
    if (name == NULL)
        return;
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
SHMEMI_PROFILE(shmem_info_get_name)

/* Caches are coherent under MPI's unified memory model: these are no-ops. */
void shmem_clear_cache_inv(void) {}
SHMEMI_PROFILE(shmem_clear_cache_inv)
void shmem_set_cache_inv(void) {}
SHMEMI_PROFILE(shmem_set_cache_inv)
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
SHMEMI_PROFILE(shmem_clear_cache_line_inv)
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
SHMEMI_PROFILE(shmem_set_cache_line_inv)
void shmem_udcflush(void) {}
SHMEMI_PROFILE(shmem_udcflush)
void shmem_udcflush_line(void *dest) { (void)dest; }
SHMEMI_PROFILE(shmem_udcflush_line)

/* shmemq has no profiling levels of its own; tools intercept pshmem_pcontrol. */
void shmem_pcontrol(const int level, ...)
{
    (void)level;
}
SHMEMI_PROFILE(shmem_pcontrol)
