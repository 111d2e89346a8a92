/*
 * shmemi.h: the internal state of the OpenSHMEM runtime over MPI-3 RMA, and the
 * inline helpers every area uses on its hot path (address and PE translation,
 * argument checks, progress).
 *
 * Mapping (docs/design.md has the reasons):
 *   symmetric heap    -> one MPI_Win_allocate window (disp_unit 1), lock_all'ed once
 *   data+bss segment  -> one MPI_Win_create window over the executable's writable segment
 *   PE numbers        -> ranks of shmemi.comm (a private dup of MPI_COMM_WORLD)
 *   context           -> its own pair of windows over the same memory
 *   team              -> an MPI communicator
 */
#ifndef SHMEMI_H
#define SHMEMI_H

#include "config.h"
#define SHMEMQ_NO_GENERIC 1
#include "shmem.h"
#include "shmemx.h"
#include "xport_types.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define SHMEMI_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SHMEMI_LIKELY(x) (x)
#define SHMEMI_UNLIKELY(x) (x)
#endif

/* Profiling interface: pshmem_NAME is another name for shmem_NAME. Place after the
 * definition of every public routine. */
#define SHMEMI_PROFILE(name) \
    extern __typeof__(name) p##name __attribute__((alias(#name)));

struct shmemq_team {
    MPI_Comm comm;
    int my_pe;          /* my rank in comm, or -1 when this PE is not a member */
    int n_pes;
    int *world_pe;      /* team PE -> world PE; NULL for SHMEM_TEAM_WORLD (identity) */
    shmem_team_config_t config;
    long config_mask;
    int predefined;     /* WORLD and SHARED may not be destroyed */
    int n_ctx;          /* contexts created from this team and not yet destroyed */
    struct shmemi_cnode *cnode; /* node shared-memory collectives (coll_node.c), or NULL */
    int cnode_state;            /* 0 not decided yet, 1 cnode in use, 2 MPI collectives */
    struct shmemi_chier *chier; /* hierarchical collectives across nodes (coll_hier.c), or NULL */
};

/* Queue-backed operations a layer above installs on a context while it batches the
 * context's traffic (1.6 sessions, src/queue/session.c). The runtime calls them when
 * ctx->batch_ops is set (one pointer test) and knows nothing of queues. Batched atomics
 * speak the transports' neutral terms (xport_types.h), never MPI's. */
struct shmemq_ctx;
struct shmemi_ctx_batch_ops {
    /* a put to world PE world_pe (off the node; the runtime translated the team PE), or
     * a non-fetching atomic (op SUM, SET, AND, OR or XOR on an element of type xt, one of
     * the fixed-width integers, float or double, so that aliases are one type): 0 when it
     * was batched, -1 when the caller must issue it itself (too large, or refused) */
    int (*put)(struct shmemq_ctx *c, void *dest, const void *src, size_t nbytes, int world_pe);
    int (*amo)(struct shmemq_ctx *c, void *dest, const void *value, shmemi_xtype_t xt,
               shmemi_xop_t op, int world_pe);
    /* complete everything batched (remote completion); cheap when nothing is */
    void (*flush)(struct shmemq_ctx *c);
    /* the context is being destroyed: complete and end the batching */
    void (*stop)(struct shmemq_ctx *c);
};

struct shmemq_ctx {
    MPI_Win heap_win;
    MPI_Win data_win;
    const MPI_Aint *heap_adj; /* per world PE: displacement of heap_base in heap_win */
    struct shmemq_team *team; /* PE numbers of RMA calls are relative to this team */
    long options;
    int is_default;
    const struct shmemi_ctx_batch_ops *batch_ops; /* set while batching (1.6 session) */
    void *batch;                                  /* their state */
};

typedef struct {
    int initialized;
    int finalized;
    int mpi_was_initialized; /* MPI was up before shmem_init: leave it up at finalize */
    int thread_level;
    int my_pe;
    int n_pes;
    MPI_Comm comm; /* private dup of MPI_COMM_WORLD: our traffic never matches the user's */
    MPI_Comm queue_comm; /* another dup, for the queues' point-to-point messages */

    char *heap_base;   /* first usable byte, aligned to 4 KiB */
    size_t heap_size;
    MPI_Win heap_win;
    MPI_Aint *heap_adj; /* per PE: displacement of that PE's heap_base in its window
                           (MPI does not promise aligned window memory, nor the same
                           misalignment on every PE) */

    char *data_base; /* writable segment of the executable, aligned down to 64 bytes */
    size_t data_size;
    MPI_Win data_win;

    /* node transport (node.c): node_base[0][pe] / [1][pe] is PE pe's heap_base /
     * data_base as mapped in this process, NULL when pe is not reachable directly */
    MPI_Comm node_comm; /* this PE's node (SHMEMQ_NODE_PES may cut real nodes) */
    int node_size;
    int host_pes;       /* PEs on this machine (the real node, before SHMEMQ_NODE_PES) */
    int host_nodes;     /* nodes on this machine: 1, or more when SHMEMQ_NODE_PES splits it */
    char **node_base[2];
    MPI_Win heap_shwin; /* MPI_Win_allocate_shared behind heap_win, or MPI_WIN_NULL */
    int node_heap_ok, node_data_ok;
    int amo_direct; /* the whole job is one node: every AMO is a CPU atomic */
    int offnode_am; /* PEs of other nodes are reached through the AM transport, and atomics
                       on a node's memory are CPU atomics of that node (xport_am.h) */

    int debug; /* SHMEM_DEBUG set: report and abort on invalid arguments */
    struct shmemq_ctx default_ctx;
    struct shmemq_team team_world;
    struct shmemq_team team_shared;
} shmemi_state_t;

extern shmemi_state_t shmemi;

/* ---- settings (settings.c): every environment variable, its default and range ---- */
typedef enum {
    SHMEMI_SET_BOOL, SHMEMI_SET_SIZE, SHMEMI_SET_INT, SHMEMI_SET_SECONDS, SHMEMI_SET_CHOICE,
    SHMEMI_SET_TEXT
} shmemi_setting_kind_t;
typedef struct {
    const char *name, *dflt; /* dflt: as shmemq_info and the docs print it */
    shmemi_setting_kind_t kind;
    size_t min, max;     /* SIZE and INT (max 0: no bound for SIZE) */
    const char *choices; /* CHOICE: the valid values, space-separated */
    const char *what;
} shmemi_setting_t;
extern const shmemi_setting_t shmemi_settings[];
extern const int shmemi_n_settings;
/* At shmem_init: warn (PE 0) about every set variable whose value is not valid. */
void shmemi_settings_check(void);
/* What shmem_init found wrong with setting i ("" if nothing). */
const char *shmemi_setting_note(int i);
/* 1/0, yes/no, on/off, true/false (any case) into *out; -1 for anything else. */
int shmemi_parse_bool(const char *v, int *out);

/* ---- errors (error.c) ---- */
/* Invalid use of a routine that returns nothing: print PE, routine and reason to stderr;
 * abort the job when SHMEM_DEBUG is set. */
void shmemi_bad_arg(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An OpenSHMEM routine that returns an error code refused its arguments and left the
 * destination untouched; a program that ignores the code goes on with wrong data. Say
 * so by default once per routine and PE (the first case, with a note that later ones
 * are not repeated); under SHMEM_DEBUG every case, then abort the job. */
void shmemi_refused(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A failure the program can handle but often does not check (a NULL from shmem_malloc):
 * said by default once per routine and PE, under SHMEM_DEBUG every time; never aborts. */
void shmemi_once(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A whole line (fmt ends in '\n') to stderr in one write, whatever SHMEM_DEBUG says. */
void shmemi_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print only when SHMEM_DEBUG is set (queue routines return codes instead). */
void shmemi_debug(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flush every stdio stream and pause briefly, so the launcher forwards the last output
 * before the job is ended (shmem_global_exit and the error and watchdog exits). */
void shmemi_let_report_out(void);
/* Unrecoverable: print and abort the job. */
void shmemi_fatal(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* A failed MPI call inside a routine that cannot return an error. */
void shmemi_mpi_fail(const char *routine, const char *mpi_call, int mpi_rc);
/* MPI's text for error code rc in buf (or "MPI error <rc>" if MPI has none); returns buf. */
const char *shmemi_mpi_strerror(int rc, char buf[MPI_MAX_ERROR_STRING]);

#define SHMEMI_MPI_CHECK(routine, call)                            \
    do {                                                           \
        int shmemi_rc_ = (call);                                   \
        if (SHMEMI_UNLIKELY(shmemi_rc_ != MPI_SUCCESS))            \
            shmemi_mpi_fail(routine, #call, shmemi_rc_);           \
    } while (0)

/* ---- progress (progress.c) ----
 * Anything that must run while a PE waits (queue message handlers, nonblocking
 * flushes) registers a hook; every blocking routine calls shmemi_progress(). */
/* A hook returns how much work its pass did (messages applied, requests served; 0: none),
 * so the node agent knows when to poll again at once and when to back off. */
typedef int (*shmemi_progress_fn)(void *arg);
/* The hook may also run on the node agent's thread (agent.c), concurrently with the
 * program's threads: it must lock what it touches. Hooks without it run only inside
 * library calls of the program's threads. */
#define SHMEMI_PROGRESS_THREAD_SAFE 1u
int shmemi_progress_register_flags(shmemi_progress_fn fn, void *arg, unsigned flags);
int shmemi_progress_register(shmemi_progress_fn fn, void *arg); /* flags 0 */
void shmemi_progress_unregister(shmemi_progress_fn fn, void *arg);
void shmemi_progress(void);
/* The same pass for a thread that only waits and yields between passes (p2p waits):
 * not counted in shmemi_progress_stamp, so a deferring agent keeps serving beside it
 * (agent.c, "Deferral"). */
void shmemi_progress_waiting(void);
/* full passes of shmemi_progress by this process's threads (progress.c; agent.c) */
extern uint64_t shmemi_progress_stamp;
/* A poll every quiet (and so shmem_barrier_all's) runs when *bell > 0, before it
 * completes anything: quiet runs no progress hooks (its MPI flush blocks inside MPI), so
 * a PE that posts work for this one (the comm queues' owner mailboxes) would otherwise
 * wait out its bounded wait. A quiet pays one pointer load when none is registered, one
 * more load when nothing is posted. One poll at a time; bell NULL removes it. */
void shmemi_quiet_poll_set(const int64_t *bell, shmemi_progress_fn fn);
/* One pass of the node agent: MPI progress and the THREAD_SAFE hooks; returns the hooks'
 * work count (MPI's own progress cannot be counted). */
int shmemi_progress_async(void);
/* Complete an MPI request while progressing everything else. */
int shmemi_wait_request(MPI_Request *req);
/* A wait whose every pass runs shmemi_progress starts: the agent stands down while it
 * lasts, if shmemi_progress runs the hooks on this thread (not inside a hook). Returns
 * what to hand shmemi_wait_self_end. */
int shmemi_wait_self_begin(void);
void shmemi_wait_self_end(int self);
/* One fruitless pass of a wait (spins: passes so far): progress, and from the 65th on
 * give the core away, since with more PEs than cores the PE awaited may need it. The
 * waits of collectives, queue flushes and the AM transport share it. */
void shmemi_wait_pass(unsigned spins);
/* Between these two, this thread's waits nap (a sleep of SHMEMI_WAIT_NAP_NS per pass once
 * the wait has lasted SHMEMI_WAIT_NAP_AFTER_S) instead of yielding, where
 * shmemi_coll_waits_nap says so: a data-queue flush, whose every PE is in the same flush.
 * begin returns what to hand end (they nest). */
#define SHMEMI_WAIT_NAP_NS 20000L
#define SHMEMI_WAIT_NAP_AFTER_S 300e-6
int shmemi_wait_nap_begin(void);
void shmemi_wait_nap_end(int prev);
extern uint64_t shmemi_wait_naps; /* naps taken by this process's waits (tests) */
/* Whether a data-queue flush's waits nap (SHMEMQ_COLL_WAIT, coll_node.c): sleep, or auto on
 * a machine that runs 4 or more PEs per core; never where PEs off the node need this PE's
 * MPI progress. */
int shmemi_coll_waits_nap(void);
/* Whether this machine runs more PEs than it has cores (coll_node.c's wait policy). */
int shmemi_node_oversubscribed(void);
/* In a retry loop, after `spins` fruitless iterations: nothing for the first few hundred,
 * then a short random sleep (bounded, growing) that breaks lockstep between PEs. */
void shmemi_backoff(unsigned spins);
/* Barrier over comm that keeps progressing (never blocks inside MPI). */
int shmemi_barrier_comm(MPI_Comm comm);

/* ---- process and MPI settings made at init ---- */
void shmemi_malloc_prime(void); /* malloc_tune.c: glibc's heap thresholds up front */
/* mpit_cvar.c: an integer MPI_T control variable set for a while, then restored. push
 * returns -1 (and saves nothing) when this MPI has no such variable. */
typedef struct {
    int active, old;
    MPI_T_cvar_handle handle;
} shmemi_cvar_saved_t;
int shmemi_cvar_push_int(const char *name, int value, shmemi_cvar_saved_t *saved);
void shmemi_cvar_pop(shmemi_cvar_saved_t *saved);
void shmemi_mpit_fini(void); /* right before our MPI_Finalize only (see mpit_cvar.c) */

/* ---- agent.c: the node progress agent (SHMEMQ_ASYNC_PROGRESS: auto, 1, 0) ---- */
int shmemi_agent_may_run(void);  /* before MPI_Init: not 0, so ask MPI for THREAD_MULTIPLE */
void shmemi_agent_plan(void);    /* collective, once the node layout is known: on or off and
                                    why (a message from each leader if MPI is not MULTIPLE) */
int shmemi_agent_planned(void);  /* this PE's process will run its node's agent */
int shmemi_agent_start(void);    /* collective, end of init; -1: the thread failed (said) */
void shmemi_agent_stop(void);    /* finalize, after the modules' STOP step */
int shmemi_agent_running(void);  /* 1 while the thread runs in this process */
int shmemi_agent_serves_every_pe(void); /* every PE's own process runs an agent */
int shmemi_agent_serves_node(void);     /* this node's agent is planned (any of its PEs) */
void shmemi_agent_describe(char *buf, size_t n); /* what was chosen and why */
/* Stand-down (agent.c's header): the calling thread of the agent's process enters (begin)
 * or leaves (end) a wait that itself runs MPI and every progress hook on each pass (the
 * caller checks that the hooks can run on its thread); while any thread is in one, the
 * agent sleeps. begin returns whether it counted (0: no agent in this process); end only
 * what begin counted. */
int shmemi_agent_self_begin(void);
void shmemi_agent_self_end(void);
/* for tests: [0] agent passes (polls), [1] times it stood down; 0, or -1 without an agent */
int shmemi_agent_stats(uint64_t out[2]);
/* Tests: passes the agent skipped because its process progressed itself (agent.c,
 * "Deferral"); 1 if it defers at all (it shares a core with PEs), else 0. */
int shmemi_agent_defer_stats(uint64_t *deferred);

/* ---- modules (module.c): start-up and shutdown of the layers above the runtime ----
 * The runtime calls no queue routine by name: the queue layer registers modules
 * (src/queue/queue_layer.c) and shmem_init/shmem_finalize run them. Finalize steps, in
 * order (each runs the registered modules in registration order): */
typedef enum {
    SHMEMI_FINI_COMPLETE,   /* first, before the finalize barrier: complete local work
                               (1.6 sessions); every PE still applies incoming traffic */
    SHMEMI_FINI_COLLECTIVE, /* after that barrier: objects freed collectively, in creation
                               order (data queues); the team communicators still exist */
    SHMEMI_FINI_DRAIN,      /* after the contexts are gone, windows still up: finish traffic
                               in flight (live comm queues); a progressing barrier follows */
    SHMEMI_FINI_STOP,       /* after that barrier: engines stop, their buffers are freed,
                               before the windows and shmemi.queue_comm go */
    SHMEMI_FINI_STEPS
} shmemi_fini_step_t;
typedef struct shmemi_module {
    const char *name;
    /* shmem_init, once the windows, the teams and shmemi.queue_comm exist (before the
     * context pool and the progress thread); NULL: nothing. A module makes no collective
     * call on a communicator it does not own: the runtime makes those, so every PE makes
     * the same ones whichever modules it registered. */
    void (*init)(void);
    void (*fini[SHMEMI_FINI_STEPS])(void); /* NULL: nothing at that step */
    /* Bytes the module wants in every PE's heap window beside the heap, mapped by node
     * peers with it (shmemi_heap_spare), for node_size PEs per node; asked before the
     * heap window exists, so before init (read settings yourself). NULL: none. */
    size_t (*heap_spare)(int node_size);
} shmemi_module_t;
/* m must stay valid until the process ends. 0, or -1 (table full, reported). */
int shmemi_module_register(const shmemi_module_t *m);
void shmemi_modules_init(void);                    /* init.c */
size_t shmemi_modules_heap_spare(int node_size);   /* heap.c: the largest request */
void shmemi_modules_fini(shmemi_fini_step_t step); /* init.c, the steps in order */

/* ---- release at shmem_finalize what the program left alive ---- */
void shmemi_coll_legacy_fini(void); /* coll_legacy.c: cached active-set communicators */
void shmemi_team_fini(void);    /* team.c: split teams never destroyed */

/* ---- symmetric memory (heap.c, symseg.c, node.c) ---- */
int shmemi_node_comm_init(void);
/* The heap's world window of `bytes`, node-mapped where possible (see node.c). */
int shmemi_node_heap_window(size_t bytes, MPI_Info info, char **base, MPI_Win *win);
void shmemi_node_heap_done(void);   /* after heap_adj is known */
/* PE pe's spare range beside its heap, as mapped here (a node peer, or this PE):
 * [*lo, *hi), never allocated, at least the largest module request
 * (shmemi_modules_heap_spare), or HEAP_BASE_ALIGN / 2 bytes when none asked. 0, or -1
 * where pe's heap is not mapped here. */
int shmemi_heap_spare(int pe, uintptr_t *lo, uintptr_t *hi);
void shmemi_node_data_share(void);  /* data_base/data_size known, before its window */
void shmemi_node_done(void);        /* both regions: decide the atomic domain */
void shmemi_node_describe(char *buf, size_t n); /* one line: what the node transport got */
void shmemi_node_fini(void);
/* The AM transport (xport_am.c): off-node operations applied by the target's node.
 * init: collective, after shmemi_node_done (decides shmemi.offnode_am); fini: collective,
 * once no PE sends any more; describe: which transport off-node operations take, and why. */
int shmemi_am_init(void);
void shmemi_am_fini(void);
void shmemi_am_describe(char *buf, size_t n);
int shmemi_am_on(void); /* shmemi.offnode_am, for tests (C++ sees no shmemi_state_t) */
/* Bursts this PE sent through the AM transport (xport_am_burst.c), each kind as it is
 * and packed: atomic [0], [1] (packed: one operand for all), typed put [2], [3] and typed
 * get [4], [5] (packed: uint32 displacements). For tests. */
void shmemi_am_burst_stats(uint64_t out[6]);
void shmemi_node_inline(int on); /* rma_inline.h's fast path on/off */
int shmemi_heap_init(void);
void shmemi_heap_fini(void);
int shmemi_symseg_init(void);
void shmemi_symseg_fini(void);

/* Which symmetric region holds [addr, addr+len): 0 the heap, 1 the data segment, -1
 * neither; *off is the offset from that region's base on this PE. */
static inline int shmemi_region(const void *addr, size_t len, uintptr_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t o = a - (uintptr_t)shmemi.heap_base;
    if (SHMEMI_LIKELY(o < shmemi.heap_size && len <= shmemi.heap_size - o)) {
        *off = o;
        return 0;
    }
    o = a - (uintptr_t)shmemi.data_base;
    if (o < shmemi.data_size && len <= shmemi.data_size - o) {
        *off = o;
        return 1;
    }
    return -1;
}

/* Translate a symmetric address to (window, displacement at world rank `rank`).
 * 0 on success, -1 when [addr, addr+len) is not inside one symmetric region. */
static inline int shmemi_xlate(const struct shmemq_ctx *ctx, const void *addr, size_t len,
                               int rank, MPI_Win *win, MPI_Aint *disp)
{
    uintptr_t off;
    int r = shmemi_region(addr, len, &off);
    if (r < 0)
        return -1;
    *win = r == 0 ? ctx->heap_win : ctx->data_win;
    *disp = (MPI_Aint)off + (r == 0 ? ctx->heap_adj[rank] : 0);
    return 0;
}

static inline int shmemi_is_symmetric(const void *addr, size_t len)
{
    MPI_Win w;
    MPI_Aint d;
    return shmemi_xlate(&shmemi.default_ctx, addr, len, shmemi.my_pe, &w, &d) == 0;
}

static inline struct shmemq_ctx *shmemi_ctx(shmem_ctx_t ctx)
{
    return (struct shmemq_ctx *)ctx;
}

/* Team PE -> world rank (the rank windows are built over); -1 when out of range. */
static inline int shmemi_team_world_pe(const struct shmemq_team *team, int pe)
{
    if (SHMEMI_UNLIKELY(pe < 0 || pe >= team->n_pes))
        return -1;
    return team->world_pe ? team->world_pe[pe] : pe;
}

/* Build team->world_pe (team PE -> world PE) from team->comm (team.c). 0, or -1 if out
 * of memory. */
int shmemi_team_fill_world_map(struct shmemq_team *team);
/* Barrier over the team (coll_node.c): through the node's shared memory when the team
 * lives on one node, else MPI_Ibarrier with progress; watchdog: run the SHMEM_DEBUG
 * watchdog while waiting. Then MPI_Win_sync on the windows. MPI_SUCCESS or an MPI code. */
int shmemi_team_barrier(struct shmemq_team *team, const char *routine, int watchdog);
/* Free the team's node collective state (collective over the team, coll_node.c). */
void shmemi_cnode_free(struct shmemq_team *team);
/* shmemq_info: how SHMEM_TEAM_WORLD's collectives run (collective over WORLD). */
void shmemi_coll_describe(char *buf, size_t n);

/* Everything an RMA/AMO call needs, checked: target rank, window, displacement.
 * Returns 0, or reports the bad argument (routine name) and returns -1. */
typedef struct {
    int rank;
    MPI_Win win;
    MPI_Aint disp;
    char *local; /* node transport: the target bytes as mapped here, or NULL */
    int region;  /* AM transport: 0 heap, 1 data segment ... */
    uintptr_t off; /* ... and the offset in it */
} shmemi_target_t;

int shmemi_check_fail(const char *routine, shmem_ctx_t ctx, const void *remote, size_t len,
                      int pe);

static inline int shmemi_target(const char *routine, shmem_ctx_t ctx, const void *remote,
                                size_t len, int pe, shmemi_target_t *t)
{
    const struct shmemq_ctx *c = shmemi_ctx(ctx);
    if (SHMEMI_LIKELY(c != NULL && shmemi.initialized)) {
        t->rank = shmemi_team_world_pe(c->team, pe);
        uintptr_t off;
        int r = shmemi_region(remote, len, &off);
        if (SHMEMI_LIKELY(t->rank >= 0 && r >= 0)) {
            t->win = r == 0 ? c->heap_win : c->data_win;
            t->disp = (MPI_Aint)off + (r == 0 ? c->heap_adj[t->rank] : 0);
            char *b = shmemi.node_base[r][t->rank];
            t->local = b ? b + off : NULL;
            t->region = r;
            t->off = off;
            return 0;
        }
    }
    (void)shmemi_check_fail(routine, ctx, remote, len, pe);
    return -1;
}

/* Called at the top of routines that need an initialised library. */
static inline int shmemi_check_init(const char *routine)
{
    if (SHMEMI_LIKELY(shmemi.initialized))
        return 0;
    shmemi_bad_arg(routine, "OpenSHMEM is not initialized (call shmem_init first)");
    return -1;
}

/* ---- RMA core (rma.c), used by every area that moves bytes ---- */
void shmemi_put_bytes(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                      size_t nbytes, int pe, int blocking);
void shmemi_get_bytes(const char *routine, shmem_ctx_t ctx, void *dest, const void *src,
                      size_t nbytes, int pe, int blocking);
/* Largest byte count handed to one MPI call; larger transfers are split. */
#define SHMEMI_MAX_MPI_COUNT ((size_t)1 << 30)

/* ---- contexts (ctx.c): windows for contexts are collective to create, so any that
 * are made ahead are made here, at init; released at finalize. ---- */
int shmemi_ctx_init(void);
void shmemi_ctx_fini(void);

/* ---- completion ---- */
void shmemi_ctx_quiet(struct shmemq_ctx *c);
/* xport_mpi_amo.c: wait, with back-off, for the results of c's fetching nbi atomics
 * sent through MPI; quiet calls it before its flush. */
void shmemi_amo_quiet(const struct shmemq_ctx *c);

/* Loops that read every element unconditionally so that they vectorize: asked for
 * explicitly, since GCC 12's -O2 vectorizes only trivially cheap loops. */
#if defined(__GNUC__) && !defined(__clang__)
#define SHMEMI_VECTORIZE __attribute__((optimize("tree-vectorize")))
#else
#define SHMEMI_VECTORIZE
#endif

/* ---- environment helpers (env.c) ---- */
/* Parse a size with optional K/M/G/T suffix (powers of 1024). 0 on success. */
int shmemi_parse_size(const char *s, size_t *out);
int shmemi_env_bool(const char *name, int dflt);
double shmemi_wtime(void);
/* Sleep while *word == val, at most ns nanoseconds, until a wake; 1 when woken. shared:
 * the word is in memory other processes map (their wakes must reach it). Without a
 * futex (not Linux) a short sleep, and wakes do nothing. */
int shmemi_futex_wait(uint32_t *word, uint32_t val, long long ns, int shared);
void shmemi_futex_wake(uint32_t *word, int n, int shared);

#endif /* SHMEMI_H */
