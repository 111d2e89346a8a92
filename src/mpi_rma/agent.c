/* agent.c: the node progress agent (SHMEMQ_ASYNC_PROGRESS; docs/design.md, "The node
 * agent").
 *
 * Between PEs of one node nothing needs the target's CPU (the node transport). Across
 * nodes some MPIs complete passive-target RMA only while the target is inside MPI
 * (MPICH ch4:ucx applies puts to MPI_Win_create memory and every accumulate as active
 * messages), and the comm queues' AM batches wait for the target's engine: a PE that
 * computes without calling anything stalls its peers, and a correct program that grows
 * past one node hangs. So when the job spans nodes one thread per node, in the node
 * leader's process (the lowest world rank of the node), enters MPI (MPI_Iprobe drives
 * the progress engine) and runs the progress hooks registered as safe from a second
 * thread (SHMEMI_PROGRESS_THREAD_SAFE: the AM receive engine, and whatever serves the
 * node's PEs). One per node, not one per PE: node peers map each other's memory, so the
 * leader's process can apply for all of them, and the PEs keep their cores.
 *
 * Policy (decided in shmemi_agent_plan, once the node layout is known):
 * SHMEMQ_ASYNC_PROGRESS unset/auto: on when the job spans nodes, off in a one-node job;
 * 1: on (one-node jobs too); 0: off. It needs MPI_THREAD_MULTIPLE, which shmem_init asks
 * for unless the variable is 0 (the layout is unknown before MPI_Init); an MPI that gives
 * less (or a program that initialised MPI at a lower level) gets one line on stderr from
 * each leader and no agent.
 *
 * Loop: after a pass that did work (a hook applied something) it polls again at once;
 * idle, it polls a few more times, then sleeps 1, 2, 4 ... microseconds up to
 * SHMEMQ_ASYNC_PROGRESS_US (the cap; measured in bench/agent.c), so an idle agent costs a
 * wake-up per cap and never spins on a core a PE computes on. MPI's own progress (RMA
 * served inside MPI_Iprobe) cannot be counted: such traffic is served once per wake-up.
 *
 * Stand-down: while a thread of the agent's own process sits in a wait that runs MPI and
 * every progress hook on each pass (shmemi_wait_request: collectives' and the data
 * queue's flush waits), that thread does all the agent would, so the agent sleeps on a
 * futex (the count of such threads) and is woken the moment the count returns to 0; it
 * polled beside that wait before, taking a core and MPI's lock from the PEs (issue 21:
 * the data queue off the node lost 10-20 % on 2 cores). The condition is this process,
 * not every PE of the node: the agent runs nothing but this process's hooks and MPI
 * progress. What it does for the node's other PEs (their memory is served by the AM
 * server, a hook of this process) the waiting thread does too; their own processes'
 * hooks and MPI progress it never ran. So a node peer that computes is still served
 * while the leader waits, and a leader that computes is served by the agent whatever its
 * peers do (test_offnode_standdown). Waits that nap, or that run MPI and the
 * server but not every hook (the AM transport's waits under its lock or under the comm
 * queue's burst paths; its other waits for a reply run every hook and count),
 * do not count: the agent keeps polling beside them.
 *
 * Binding (hwloc): to a core that no PE of the node is bound to (the last such core), so
 * it takes no PE's core; unbound when there is none (or the PEs are unbound).
 * SHMEMQ_ASYNC_PROGRESS_CPU=<PU index> picks the PU instead.
 *
 * Deferral: an unbound agent on a machine with more PEs and agents than cores takes a
 * core from a PE whenever it polls. There it skips its pass, backing off as if idle,
 * while a thread of its process has run shmemi_progress (MPI and every hook: all the
 * agent would do) since its last look (shmemi_progress_stamp); it serves once a whole
 * sleep passes without one, i.e. within its back-off (at most the cap) after the PE
 * starts to compute, spin or block in MPI. The point-to-point waits' passes, which yield
 * between passes, do not count (shmemi_progress_waiting): beside them serving at once
 * answers sooner. Index-gather's comm-queue gets, 2 PEs each its own node on 2 cores:
 * 0.63-0.85x mpi_alltoallv polling beside the PE, 0.93-0.96x deferring (bench/README.md,
 * "The agent defers"). */
#define _GNU_SOURCE 1
#include "shmemi.h"
#include <hwloc.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#define AGENT_SPIN_POLLS 8    /* idle polls before the first sleep */
#define AGENT_DEFAULT_CAP_US 500 /* SHMEMQ_ASYNC_PROGRESS_US's default (settings.c) */
/* Longest sleep of a stood-down agent: only a safety net, the last waiter wakes it. */
#define AGENT_STAND_DOWN_NS 100000000L

/* The stand-down (header). waiting: threads of this process in a self-progressing wait,
 * the futex word; parked: 1 the agent sleeps (or is about to) on it until the last
 * waiter out wakes it (both sequentially consistent: either the waiter sees parked, or
 * the agent sees the count fall before it sleeps, and the futex compares the count
 * anyway); 2 it sleeps there for its idle back-off only, no wake needed.
 * passes and stood_down count for tests (shmemi_agent_stats). */
static struct {
    int waiting;
    int parked;
    uint64_t passes, stood_down, deferred;
} sd;

/* The count as the futex word (int and uint32_t may alias). */
static uint32_t *waiting_word(void)
{
    return (uint32_t *)(void *)&sd.waiting;
}

static struct {
    int planned;    /* this PE's process runs its node's agent (shmemi_agent_plan) */
    int running;    /* the thread runs */
    int all_served; /* every PE of the job runs an agent in its own process */
    int node_served; /* this node's agent is planned (on this PE's process or a peer's) */
    int leader;     /* world rank of this node's leader */
    int nodes;      /* nodes in the job */
    int stop;       /* atomic: the thread ends at its next pass */
    pthread_t thread;
    long cap_us;
    int pu; /* the PU the thread binds to, or -1 */
    int defer; /* it shares a core with PEs: it leaves passes to its process (header) */
    char why[160]; /* on or off, and why */
    char how[96];  /* where it runs */
} ag = {.pu = -1, .why = "off: shmem_init has not run", .how = ""};

/* SHMEMQ_ASYNC_PROGRESS: -1 auto (unset, empty, "auto" or not valid: shmem_init said so),
 * 0 off, 1 on; the values settings.c lists. */
static int agent_mode(void)
{
    static const char *const on[] = {"1", "on", "yes", "true"}, *const off[] = {"0", "off", "no", "false"};
    const char *e = getenv("SHMEMQ_ASYNC_PROGRESS");
    for (int i = 0; e && i < 4; i++) {
        if (strcmp(e, on[i]) == 0)
            return 1;
        if (strcmp(e, off[i]) == 0)
            return 0;
    }
    return -1;
}

int shmemi_agent_may_run(void)
{
    return agent_mode() != 0;
}

static const char *level_name(int l)
{
    return l == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
           : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : l == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                        : "MPI_THREAD_SINGLE";
}

/* The CPUs the node's PEs are bound to (their union), gathered at the leader. Every PE
 * of the node calls it. 0 and *bound filled at the leader. */
static int node_binding(cpu_set_t *bound)
{
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine); /* unknown: claims nothing */
    int me = 0, n = shmemi.node_size;
    MPI_Comm_rank(shmemi.node_comm, &me);
    cpu_set_t *all = me == 0 ? malloc((size_t)n * sizeof *all) : NULL;
    if (me == 0 && !all)
        n = 0; /* still make the call: the others are in it */
    int rc = MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
                        shmemi.node_comm);
    if (me != 0)
        return 0;
    CPU_ZERO(bound);
    for (int i = 0; i < n; i++)
        CPU_OR(bound, bound, &all[i]);
    free(all);
    return rc == MPI_SUCCESS && n > 0 ? 0 : -1;
}

/* Chooses the PU (or -1: unbound) from the node's bindings and says where in ag.how. */
static void choose_pu(const cpu_set_t *bound, int bound_known)
{
    const char *e = getenv("SHMEMQ_ASYNC_PROGRESS_CPU");
    char *end;
    long pu = e && *e ? strtol(e, &end, 10) : -1;
    if (e && *e && *end == '\0' && pu >= 0 && pu <= (1L << 30)) { /* else: as unset */
        ag.pu = (int)pu;
        snprintf(ag.how, sizeof ag.how, "PU %d (SHMEMQ_ASYNC_PROGRESS_CPU)", ag.pu);
        return;
    }
    snprintf(ag.how, sizeof ag.how, "unbound (the node's PEs' bindings unknown)");
    hwloc_topology_t topo;
    if (!bound_known || hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        for (int i = ncores - 1; i >= 0 && ag.pu < 0; i--) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
            int free_core = core != NULL && !hwloc_bitmap_iszero(core->cpuset);
            for (int p = core ? hwloc_bitmap_first(core->cpuset) : -1; free_core && p >= 0;
                 p = hwloc_bitmap_next(core->cpuset, p))
                if (p >= CPU_SETSIZE || CPU_ISSET(p, bound))
                    free_core = 0;
            if (free_core)
                ag.pu = hwloc_bitmap_first(core->cpuset);
        }
        if (ag.pu >= 0)
            snprintf(ag.how, sizeof ag.how, "PU %d (a core no PE of the node is bound to)",
                     ag.pu);
        else
            snprintf(ag.how, sizeof ag.how, "unbound (no core is free of the node's PEs' bindings)");
    }
    hwloc_topology_destroy(topo);
}

/* Sleep while n threads of this process progress it themselves. us > 0 (the agent was
 * idle): as long as its back-off says, like an idle pass, and the waiters need not wake
 * it. Otherwise (it was polling at once: traffic): until the count changes, the last
 * waiter out wakes it (or the safety timeout). */
static void stand_down(int n, long us)
{
    __atomic_store_n(&sd.parked, us > 0 ? 2 : 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&sd.waiting, __ATOMIC_SEQ_CST) == n) {
        long long ns = us > 0 ? us * 1000LL : AGENT_STAND_DOWN_NS;
        (void)shmemi_futex_wait(waiting_word(), (uint32_t)n, ns, 0); /* n changed: at once */
    }
    __atomic_store_n(&sd.parked, 0, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&sd.stood_down, 1, __ATOMIC_RELAXED);
}

int shmemi_agent_self_begin(void)
{
    if (!__atomic_load_n(&ag.running, __ATOMIC_ACQUIRE))
        return 0;
    __atomic_add_fetch(&sd.waiting, 1, __ATOMIC_SEQ_CST);
    return 1;
}

void shmemi_agent_self_end(void)
{
    if (__atomic_sub_fetch(&sd.waiting, 1, __ATOMIC_SEQ_CST) == 0 &&
        __atomic_load_n(&sd.parked, __ATOMIC_SEQ_CST) == 1)
        shmemi_futex_wake(waiting_word(), 1, 0);
}

int shmemi_agent_defer_stats(uint64_t *deferred)
{
    *deferred = __atomic_load_n(&sd.deferred, __ATOMIC_RELAXED);
    return ag.defer;
}

int shmemi_agent_stats(uint64_t out[2])
{
    out[0] = __atomic_load_n(&sd.passes, __ATOMIC_RELAXED);
    out[1] = __atomic_load_n(&sd.stood_down, __ATOMIC_RELAXED);
    return __atomic_load_n(&ag.running, __ATOMIC_ACQUIRE) ? 0 : -1;
}

/* The sleep after the idle-th fruitless pass in a row: 0 poll again at once, -1 yield
 * (SHMEMQ_ASYNC_PROGRESS_US=0: never sleep), else 1, 2, 4 ... us up to the cap. */
static long backoff_us(unsigned idle)
{
    if (idle <= AGENT_SPIN_POLLS)
        return 0;
    if (ag.cap_us == 0)
        return -1;
    unsigned k = idle - AGENT_SPIN_POLLS - 1;
    long us = k >= 20 ? ag.cap_us : 1L << k;
    return us > ag.cap_us ? ag.cap_us : us;
}

/* The pause after a pass that found nothing (or was left to the process, deferral):
 * the idle-th such in a row. */
static void idle_pause(unsigned idle)
{
    long us = backoff_us(idle);
    if (us < 0)
        sched_yield();
    if (us <= 0)
        return;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static void *agent_main(void *arg)
{
    (void)arg;
    /* The default 50 us timer slack would stretch every short sleep of the back-off to
     * ~55 us; a thread's slack is its own. */
    (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    unsigned idle = 0;
    uint64_t seen = __atomic_load_n(&shmemi_progress_stamp, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&ag.stop, __ATOMIC_ACQUIRE)) {
        int n = __atomic_load_n(&sd.waiting, __ATOMIC_SEQ_CST);
        if (n > 0) { /* a fruitless pass, skipped: the waiter does it */
            stand_down(n, backoff_us(++idle));
            continue;
        }
        if (ag.defer) { /* the process progressed itself since the last look (header) */
            uint64_t now = __atomic_load_n(&shmemi_progress_stamp, __ATOMIC_RELAXED);
            if (now != seen) {
                seen = now;
                __atomic_add_fetch(&sd.deferred, 1, __ATOMIC_RELAXED);
                idle_pause(++idle);
                continue;
            }
        }
        __atomic_add_fetch(&sd.passes, 1, __ATOMIC_RELAXED);
        if (shmemi_progress_async() > 0) {
            idle = 0; /* more may follow: poll again at once */
            continue;
        }
        idle_pause(++idle);
    }
    return NULL;
}

void shmemi_agent_plan(void)
{
    int node_rank = 0, is_leader, mode = agent_mode(), level = MPI_THREAD_SINGLE;
    MPI_Comm_rank(shmemi.node_comm, &node_rank);
    is_leader = node_rank == 0;
    ag.planned = ag.running = ag.all_served = ag.node_served = 0;
    ag.pu = -1;
    ag.defer = 0;
    ag.how[0] = '\0';
    ag.leader = shmemi.my_pe;
    MPI_Bcast(&ag.leader, 1, MPI_INT, 0, shmemi.node_comm);
    MPI_Allreduce(&is_leader, &ag.nodes, 1, MPI_INT, MPI_SUM, shmemi.comm);
    char spans[64];
    snprintf(spans, sizeof spans, "job spans %d nodes", ag.nodes);
    /* the leader's decision holds for its node (an environment that differs between
     * PEs must not split the node's collective calls below) */
    int wanted = mode == 1 || (mode == -1 && ag.nodes > 1);
    MPI_Bcast(&wanted, 1, MPI_INT, 0, shmemi.node_comm);
    if (!wanted) {
        snprintf(ag.why, sizeof ag.why, "off: %s",
                 mode == 0 ? "SHMEMQ_ASYNC_PROGRESS=0" : "one-node job");
        return;
    }
    cpu_set_t bound;
    int bound_known = node_binding(&bound) == 0;
    const char *reason = mode == 1 ? "SHMEMQ_ASYNC_PROGRESS=1" : spans;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE) {
        snprintf(ag.why, sizeof ag.why, "off: MPI provides %s, the agent needs MPI_THREAD_MULTIPLE",
                 level_name(level));
        if (is_leader)
            shmemi_say("[shmemq PE %d] shmem_init: the node agent (%s) cannot start: MPI provides "
                       "%s, it needs MPI_THREAD_MULTIPLE. Going on without it: a PE of this node "
                       "that computes or spins outside shmemq while PEs of other nodes target it "
                       "then waits for the MPI's own progress. Initialise MPI with "
                       "MPI_THREAD_MULTIPLE (or let shmem_init do it), or set "
                       "SHMEMQ_ASYNC_PROGRESS=0 to go without it silently.\n",
                       shmemi.my_pe, reason, level_name(level));
        return;
    }
    ag.node_served = 1;
    if (!is_leader) {
        snprintf(ag.why, sizeof ag.why, "on PE %d for this node (%s)", ag.leader, reason);
        return;
    }
    ag.planned = 1;
    snprintf(ag.why, sizeof ag.why, "on PE %d (%s)", shmemi.my_pe, reason);
    choose_pu(&bound, bound_known);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ag.defer = ag.pu < 0 && cores > 0 && (long)shmemi.host_pes + shmemi.host_nodes > cores;
}

int shmemi_agent_planned(void)
{
    return ag.planned;
}

int shmemi_agent_running(void)
{
    return ag.running;
}

int shmemi_agent_serves_node(void)
{
    return ag.node_served;
}

int shmemi_agent_serves_every_pe(void)
{
    return ag.all_served;
}

int shmemi_agent_start(void)
{
    int rc = 0;
    if (ag.planned && !ag.running) {
        const char *e = getenv("SHMEMQ_ASYNC_PROGRESS_US");
        char *end = NULL;
        ag.cap_us = e && *e ? strtol(e, &end, 10) : AGENT_DEFAULT_CAP_US;
        if ((end && *end) || ag.cap_us < 0 || ag.cap_us > 1000000)
            ag.cap_us = AGENT_DEFAULT_CAP_US; /* shmem_init said so (settings.c) */
        __atomic_store_n(&ag.stop, 0, __ATOMIC_RELEASE);
        /* bound from its first instruction (the attribute), so nothing but this thread
         * writes ag; a PU that cannot be had leaves it unbound */
        int created = -1;
        if (ag.pu >= 0 && ag.pu < CPU_SETSIZE) {
            pthread_attr_t attr;
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(ag.pu, &set);
            if (pthread_attr_init(&attr) == 0) {
                if (pthread_attr_setaffinity_np(&attr, sizeof set, &set) == 0)
                    created = pthread_create(&ag.thread, &attr, agent_main, NULL);
                pthread_attr_destroy(&attr);
            }
            if (created != 0)
                snprintf(ag.how, sizeof ag.how, "unbound (binding to PU %d failed)", ag.pu);
        }
        if (created != 0)
            created = pthread_create(&ag.thread, NULL, agent_main, NULL);
        if (created != 0) {
            shmemi_say("[shmemq PE %d] shmem_init: could not start the node agent's thread; "
                       "going on without it (see SHMEMQ_ASYNC_PROGRESS)\n", shmemi.my_pe);
            snprintf(ag.why, sizeof ag.why, "off: creating its thread failed");
            ag.how[0] = '\0';
            rc = -1;
        } else {
            __atomic_store_n(&ag.running, 1, __ATOMIC_RELEASE);
            /* by the creator, so the name is there when shmem_init returns (ps, gdb,
             * test/agent.c) */
            (void)pthread_setname_np(ag.thread, "shmemq-agent");
        }
    }
    /* AM batches to a PE are applied while it computes only if its own process runs an
     * agent (the comm queue asks before taking that path) */
    int mine = ag.running && shmemi.node_size == 1;
    MPI_Allreduce(&mine, &ag.all_served, 1, MPI_INT, MPI_MIN, shmemi.comm);
    return rc;
}

void shmemi_agent_stop(void)
{
    if (!ag.running)
        return;
    __atomic_store_n(&ag.stop, 1, __ATOMIC_RELEASE);
    shmemi_futex_wake(waiting_word(), INT_MAX, 0); /* a stood-down agent */
    pthread_join(ag.thread, NULL);
    __atomic_store_n(&ag.running, 0, __ATOMIC_RELEASE);
    ag.running = ag.planned = ag.all_served = ag.node_served = 0;
    snprintf(ag.why, sizeof ag.why, "off: stopped by shmem_finalize");
    ag.how[0] = '\0';
}

void shmemi_agent_describe(char *buf, size_t n)
{
    if (ag.running)
        snprintf(buf, n, "%s, %s, idle sleep up to %ld us%s", ag.why, ag.how, ag.cap_us,
                 ag.defer ? ", defers to its process's own progress (PEs and agents "
                            "outnumber the cores)"
                          : "");
    else
        snprintf(buf, n, "%s", ag.why);
}
