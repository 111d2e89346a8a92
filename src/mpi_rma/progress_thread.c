/* progress_thread.c: the opt-in progress thread (SHMEMQ_ASYNC_PROGRESS=1).
 *
 * Between PEs of one node nothing needs the target's CPU (the node transport). Across
 * nodes some MPIs complete passive-target RMA only while the target is inside MPI
 * (MPICH ch4:ucx applies puts to MPI_Win_create memory and every accumulate as active
 * messages), and the comm queues' AM batches wait for the target's engine. A PE that
 * computes without calling anything would then stall its peers. This thread enters MPI
 * (MPI_Iprobe drives the progress engine) and runs the progress hooks registered as
 * safe from this thread (SHMEMI_PROGRESS_THREAD_SAFE: the AM receive engine), then sleeps
 * SHMEMQ_ASYNC_PROGRESS_US microseconds (default 50): nothing tells us whether a poll did
 * work, so it never spins. It needs MPI_THREAD_MULTIPLE (shmem_init asks MPI for it).
 *
 * Binding (hwloc): when the process is bound to part of the machine, the thread is bound
 * to a core outside that part (the last such core), so it does not take the PE's own
 * core; an unbound process leaves the thread unbound. SHMEMQ_ASYNC_PROGRESS_CPU=<PU
 * index> picks the PU instead. docs/design.md has the rule and the measured cost. */
#include "shmemi.h"
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

static struct {
    int running;
    volatile int stop;
    pthread_t thread;
    long sleep_us;
    int pu; /* the PU the thread binds to, or -1 */
    char how[128];
} pt = {.pu = -1, .how = "off"};

int shmemi_async_progress_wanted(void)
{
    return shmemi_env_bool("SHMEMQ_ASYNC_PROGRESS", 0);
}

/* Chooses the PU (or -1: unbound) and says why in pt.how. */
static void choose_pu(void)
{
    const char *e = getenv("SHMEMQ_ASYNC_PROGRESS_CPU");
    char *end;
    long pu = e && *e ? strtol(e, &end, 10) : -1;
    if (e && *e && *end == '\0' && pu >= 0 && pu <= (1L << 30)) { /* else: as unset */
        pt.pu = (int)pu;
        snprintf(pt.how, sizeof pt.how, "thread bound to PU %d (SHMEMQ_ASYNC_PROGRESS_CPU)",
                 pt.pu);
        return;
    }
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (hwloc_topology_load(topo) == 0 && mine &&
        hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_const_bitmap_t all = hwloc_topology_get_complete_cpuset(topo);
        if (hwloc_bitmap_isincluded(all, mine)) {
            snprintf(pt.how, sizeof pt.how, "thread unbound (process not bound)");
        } else {
            int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            for (int i = ncores - 1; i >= 0 && pt.pu < 0; i--) {
                hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i);
                if (core && !hwloc_bitmap_intersects(core->cpuset, mine))
                    pt.pu = hwloc_bitmap_first(core->cpuset);
            }
            if (pt.pu >= 0)
                snprintf(pt.how, sizeof pt.how, "thread bound to PU %d (a core the PE is not bound to)",
                         pt.pu);
            else
                snprintf(pt.how, sizeof pt.how, "thread unbound (the PE is bound to every core)");
        }
    }
    hwloc_bitmap_free(mine);
    hwloc_topology_destroy(topo);
}

static void bind_self(void)
{
    if (pt.pu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(pt.pu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        snprintf(pt.how, sizeof pt.how, "thread unbound (binding to PU %d failed)", pt.pu);
}

static void *thread_main(void *arg)
{
    (void)arg;
    bind_self();
    struct timespec ts = {pt.sleep_us / 1000000, (pt.sleep_us % 1000000) * 1000};
    while (!pt.stop) {
        shmemi_progress_async();
        if (pt.sleep_us > 0)
            nanosleep(&ts, NULL);
        else
            sched_yield();
    }
    return NULL;
}

int shmemi_async_progress_running(void)
{
    return pt.running;
}

int shmemi_async_progress_start(void)
{
    if (!shmemi_async_progress_wanted() || pt.running)
        return 0;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE) {
        fprintf(stderr,
                "[shmemq PE %d] shmem_init: SHMEMQ_ASYNC_PROGRESS needs MPI_THREAD_MULTIPLE "
                "(MPI provides level %d); no progress thread\n",
                shmemi.my_pe, level);
        return 0;
    }
    const char *e = getenv("SHMEMQ_ASYNC_PROGRESS_US");
    char *end = NULL;
    pt.sleep_us = e && *e ? strtol(e, &end, 10) : 50;
    if ((end && *end) || pt.sleep_us < 0 || pt.sleep_us > 1000000)
        pt.sleep_us = 50; /* shmem_init said so (settings.c) */
    snprintf(pt.how, sizeof pt.how, "thread unbound");
    choose_pu();
    pt.stop = 0;
    if (pthread_create(&pt.thread, NULL, thread_main, NULL) != 0) {
        fprintf(stderr, "[shmemq PE %d] shmem_init: could not start the progress thread\n",
                shmemi.my_pe);
        snprintf(pt.how, sizeof pt.how, "off (pthread_create failed)");
        return -1;
    }
    pt.running = 1;
    return 0;
}

void shmemi_async_progress_stop(void)
{
    if (!pt.running)
        return;
    pt.stop = 1;
    pthread_join(pt.thread, NULL);
    pt.running = 0;
    snprintf(pt.how, sizeof pt.how, "off");
}

void shmemi_async_progress_describe(char *buf, size_t n)
{
    if (pt.running)
        snprintf(buf, n, "on, every %ld us, %s", pt.sleep_us, pt.how);
    else
        snprintf(buf, n, "%s", pt.how);
}
