/* coll_node.c: team collectives through the node's shared memory, for teams whose PEs
 * all live on one node (docs/collectives.md has the design and the numbers).
 *
 * Each team gets, on its first collective, one MPI_Win_allocate_shared segment: per
 * team PE two slots (used by alternate steps), each a 64-byte line
 * {epoch, kind, size, extra, root, bad, first 16 payload bytes} followed by the rest of
 * the payload. A step ("round"): the PE writes its payload and header into the slot of
 * parity epoch & 1, then stores the epoch (release); it then waits until every peer's
 * slot of that parity shows the epoch (acquire) and reads what it needs. Slots are
 * reused without a barrier between collectives: a PE writes the slot of epoch e + 2
 * only after it saw every peer post e + 1, which a peer does only after it has finished
 * reading step e. Small payloads (8 bytes: one cache line per peer) travel in the
 * slots; larger data is copied straight from the peers' symmetric buffers, which node
 * PEs map (shmemi.node_base), between the first step and a closing one.
 *
 * The first step is also the agreement of agree.c: every PE sees every header, so a PE
 * that rejected its arguments, or called another routine, size or root, makes every PE
 * return -1 with nothing written. A PE waiting for a step keeps calling shmemi_progress
 * (peers may be flushing queues to it), yields its core (at every try when the machine
 * is oversubscribed), and after a long wait (2 ms) naps on a futex between progress
 * calls (wait_policy, below).
 * Under SHMEM_DEBUG the wait runs a watchdog like agree.c's. */
#include "coll_node.h"
#include "agree.h"
#include <limits.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

/* ---- setup ---- */

/* SHMEMQ_COLL_NODE=0 keeps every team on the MPI collectives. */
static int node_allowed(void)
{
    static int v = -1;
    if (v < 0)
        v = shmemi_env_bool("SHMEMQ_COLL_NODE", 1);
    return v;
}

static void cn_describe(const struct shmemq_team *team, const char *routine, const char *how)
{
    if (shmemi.debug && team->my_pe == 0)
        fprintf(stderr, "[shmemq PE %d] %s: team of %d PEs (%s): collectives %s\n",
                shmemi.my_pe, routine, team->n_pes,
                team == &shmemi.team_world ? "WORLD"
                : team == &shmemi.team_shared ? "SHARED" : "split",
                how);
}

static int cn_setup(struct shmemq_team *team, const char *routine, int watchdog)
{
    int n = team->n_pes, ok = node_allowed();
    for (int i = 0; i < n && ok; i++) {
        int w = shmemi_team_world_pe(team, i);
        ok = shmemi.node_base[0][w] != NULL && shmemi.node_base[1][w] != NULL;
    }
    if (n > 1) {
        /* Every member arrives (with progress) before the blocking MPI calls below, as a
         * team split does; then all take the same decision. The watchdog only where the
         * caller runs one (shmem_barrier_all does not). */
        if ((watchdog ? shmemi_agree_barrier(team->comm, routine)
                      : shmemi_barrier_comm(team->comm)) != MPI_SUCCESS)
            return -1;
        int all = 0;
        if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, team->comm) != MPI_SUCCESS)
            return -1;
        ok = all;
    }
    if (!ok) {
        if (!node_allowed())
            cn_describe(team, routine, "through MPI (SHMEMQ_COLL_NODE=0)");
        else if (n > 1)
            shmemi_chier_setup(team, routine); /* spans nodes: hierarchical where it pays */
        return 0;
    }
    struct shmemi_cnode *c = shmemi_cn_alloc(team, routine);
    team->cnode = c;
    team->cnode_state = 1;
    cn_describe(team, routine, "through the node's shared memory");
    return 0;
}

struct shmemi_cnode *shmemi_cn_alloc(struct shmemq_team *team, const char *routine)
{
    int n = team->n_pes;
    struct shmemi_cnode *c = calloc(1, sizeof *c);
    char **arrays = calloc(3 * (size_t)n, sizeof(char *));
    if (!c || !arrays) {
        free(c);
        free(arrays);
        shmemi_fatal(routine, "out of memory"); /* the peers are set up already */
    }
    c->me = team->my_pe;
    c->n = n;
    c->part = arrays;
    c->base[0] = arrays + n;
    c->base[1] = arrays + 2 * (size_t)n;
    c->win = MPI_WIN_NULL;
    for (int i = 0; i < n; i++) {
        int w = shmemi_team_world_pe(team, i);
        c->base[0][i] = shmemi.node_base[0][w];
        c->base[1][i] = shmemi.node_base[1][w];
    }
    if (n == 1) {
        c->own = aligned_alloc(CN_LINE, CN_PART);
        if (!c->own)
            shmemi_fatal(routine, "out of memory");
        memset(c->own, 0, CN_PART);
        c->part[0] = c->own;
    } else {
        MPI_Info info;
        char *mine;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        int rc = MPI_Win_allocate_shared(CN_PART, 1, info, team->comm, &mine, &c->win);
        MPI_Info_free(&info);
        if (rc != MPI_SUCCESS)
            shmemi_fatal(routine, "MPI_Win_allocate_shared for the node collectives failed");
        memset(mine, 0, CN_PART);
        for (int i = 0; i < n; i++) {
            MPI_Aint sz;
            int du;
            SHMEMI_MPI_CHECK(routine, MPI_Win_shared_query(c->win, i, &sz, &du, &c->part[i]));
        }
        /* Everyone's part is zeroed before anyone reads it. */
        SHMEMI_MPI_CHECK(routine, MPI_Barrier(team->comm));
    }
    return c;
}

struct shmemi_cnode *shmemi_cnode_get(struct shmemq_team *team, const char *routine,
                                      int watchdog)
{
    if (SHMEMI_UNLIKELY(team->cnode_state == 0)) {
        team->cnode_state = 2;
        if (cn_setup(team, routine, watchdog) != 0)
            return NULL;
    }
    return team->cnode;
}

void shmemi_cn_destroy(struct shmemi_cnode *c)
{
    if (c == NULL)
        return;
    if (c->win != MPI_WIN_NULL)
        MPI_Win_free(&c->win);
    free(c->own);
    free(c->part);
    free(c);
}

void shmemi_cnode_free(struct shmemq_team *team)
{
    struct shmemi_cnode *c = team->cnode;
    team->cnode = NULL;
    team->cnode_state = 0;
    shmemi_cn_destroy(c);
    shmemi_chier_free(team);
}

/* ---- one step ---- */

static double watchdog_limit(void)
{
    static double secs = -1;
    if (secs < 0) {
        const char *s = getenv("SHMEMQ_WATCHDOG_SECONDS");
        char *end;
        double x = s && *s ? strtod(s, &end) : 10;
        secs = s && *s && (*end || x < 0) ? 10 : x; /* agree.c reports a bad value */
    }
    return secs;
}

static void cn_watchdog_fire(const struct shmemi_cnode *c, const shmemi_coll_t *g,
                             const char *routine, double waited) __attribute__((noreturn));
static void cn_watchdog_fire(const struct shmemi_cnode *c, const shmemi_coll_t *g,
                             const char *routine, double waited)
{
    char list[1024];
    size_t len = 0;
    int missing = 0;
    list[0] = '\0';
    MPI_Group tg, wg;
    MPI_Comm_group(g->comm, &tg);
    MPI_Comm_group(shmemi.comm, &wg);
    for (int i = 0; i < c->n && len < sizeof list - 128; i++) {
        if (atomic_load_explicit(&cn_slot(c, i, c->epoch)->epoch, memory_order_acquire) >=
            c->epoch)
            continue;
        int w = -1;
        MPI_Group_translate_ranks(tg, 1, &i, wg, &w);
        len += (size_t)snprintf(list + len, sizeof list - len,
                                "%s%d (world PE %d: not in this collective)",
                                missing++ ? ", " : "", i, w);
    }
    MPI_Group_free(&tg);
    MPI_Group_free(&wg);
    fprintf(stderr,
            "[shmemq PE %d] %s: watchdog: waited %.1f s for the other PEs of the team (%d PEs, "
            "node shared memory); team PEs that have not arrived: %s. Ending the job with "
            "shmem_global_exit(1) (SHMEM_DEBUG; SHMEMQ_WATCHDOG_SECONDS sets the wait, 0 turns "
            "the watchdog off).\n",
            shmemi.my_pe, routine, waited, c->n, missing ? list : "none");
    shmemi_let_report_out();
    shmem_global_exit(1);
    abort();
}

/* How a step waits (SHMEMQ_COLL_WAIT). With a core per PE: spin 32 times with pause,
 * then progress the library on every try and, after 64 tries, yield. With more PEs on
 * the machine than cores the PE being waited for needs this core, so spinning only
 * delays it: yield at every try, progressing every CN_OVER_PROGRESS tries (the barrier at
 * 4 PEs on 2 cores: ~4 us, against ~7 us spinning first and ~24 us napping early,
 * bench/README.md). After a long wait (CN_LONG_S, timed: a try's cost varies 100x with
 * the load and under valgrind) the PE naps in the kernel on the line's epoch (a futex in
 * the shared segment, woken by shmemi_cn_post), at most CN_NAP_NS at a time so that the
 * library still progresses, and leaves the cores to PEs that compute; `spin` never naps,
 * `sleep` naps after CN_SPINS tries (a test knob: it is slower). */
#define CN_SPINS 64
#define CN_LONG_S 2e-3
#define CN_NAP_NS 100000L
#define CN_OVER_PROGRESS 8

enum { CW_NEVER, CW_SOON, CW_LONG };
static struct {
    int decided;
    int over; /* more PEs on this machine than cores */
    /* 4 PEs a core or more: data-queue flush waits nap under auto (measured: 16 on 2
     * cores gains, 8 is even, 4 loses index-gather's wake-ups; bench/README.md) */
    int crowded;
    int nap;  /* CW_NEVER (spin), CW_SOON (sleep: after CN_SPINS tries), CW_LONG (auto) */
    uint64_t naps, woken; /* naps taken, and ended by a post's wake (tests read them) */
} cw;

static void wait_policy(void)
{
    if (SHMEMI_LIKELY(cw.decided))
        return;
    const char *s = getenv("SHMEMQ_COLL_WAIT");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cw.over = cores > 0 && shmemi.host_pes > cores;
    cw.crowded = cores > 0 && shmemi.host_pes >= 4 * cores;
    if (s && strcmp(s, "spin") == 0)
        cw.nap = CW_NEVER;
    else if (s && strcmp(s, "sleep") == 0)
        cw.nap = CW_SOON;
    else
        cw.nap = CW_LONG; /* "auto" and bad values: settings.c reported them */
    cw.decided = 1;
}

/* Whether a wait at its try `spins` has been long enough to nap (t0: when it was first
 * asked, 0 before). Asked on every try that yields. */
static int long_enough(unsigned spins, double *t0)
{
    if (cw.nap == CW_SOON)
        return spins >= CN_SPINS;
    double now = shmemi_wtime();
    if (*t0 == 0)
        *t0 = now;
    return now - *t0 >= CN_LONG_S;
}

/* A PE naps only when nothing off its node waits for its progress: in a one-node job,
 * or when off-node traffic arrives as messages its node's agent serves. Otherwise
 * MPI's passive-target RMA and accumulates to it need it inside MPI (progress.c). */
static int may_nap(void)
{
    return shmemi.amo_direct || (shmemi.offnode_am && shmemi_agent_serves_node());
}

int shmemi_node_oversubscribed(void)
{
    wait_policy();
    return cw.over;
}

int shmemi_coll_waits_nap(void)
{
    wait_policy();
    return may_nap() && (cw.nap == CW_SOON || (cw.nap == CW_LONG && cw.crowded));
}

/* The epoch's low 32 bits: the futex word (it changes on every post). */
static uint32_t *cn_word(const cn_line_t *l)
{
    char *p = (char *)(uintptr_t)&l->epoch;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    p += 4;
#endif
    return (uint32_t *)(void *)p;
}

void shmemi_cn_wake(cn_line_t *l)
{
    /* shared: the sleepers are other processes mapping the same segment. */
    shmemi_futex_wake(cn_word(l), INT_MAX, 1);
}

static void cn_nap(const cn_line_t *l, uint64_t e)
{
    cn_line_t *w = (cn_line_t *)(uintptr_t)l; /* the sleeper count is the waiters' word */
    atomic_fetch_add_explicit(&w->sleepers, 1, memory_order_seq_cst);
    uint64_t now = atomic_load_explicit(&l->epoch, memory_order_seq_cst);
    if (now < e) {
        __atomic_fetch_add(&cw.naps, 1, __ATOMIC_RELAXED);
        if (shmemi_futex_wait(cn_word(l), (uint32_t)now, CN_NAP_NS, 1))
            __atomic_fetch_add(&cw.woken, 1, __ATOMIC_RELAXED);
    }
    atomic_fetch_sub_explicit(&w->sleepers, 1, memory_order_relaxed);
}

int shmemi_coll_wait_stats(uint64_t out[3])
{
    wait_policy();
    out[0] = __atomic_load_n(&cw.naps, __ATOMIC_RELAXED);
    out[1] = __atomic_load_n(&cw.woken, __ATOMIC_RELAXED);
    out[2] = cw.nap != CW_NEVER && may_nap();
    return 0;
}

/* Wait for line l to show epoch e (see wait_policy above), with the watchdog. */
void shmemi_cn_wait(const struct shmemi_cnode *c, const shmemi_coll_t *g, const char *routine,
                    int watchdog, const cn_line_t *l, uint64_t e)
{
    double t0 = 0, limit = 0;
    int dog = watchdog && shmemi.debug && (limit = watchdog_limit()) > 0;
    wait_policy();
    int may = cw.nap != CW_NEVER && may_nap() && c->win != MPI_WIN_NULL, napping = 0;
    double since = 0;
    unsigned pause = cw.over ? 0 : 32, yield = cw.over ? 0 : CN_SPINS;
    unsigned every = cw.over ? CN_OVER_PROGRESS : 1;
    for (unsigned spins = 0;; spins++) {
        if (atomic_load_explicit(&l->epoch, memory_order_acquire) >= e)
            return;
        if (spins < pause) {
            cn_relax();
            continue;
        }
        /* Timed on every yielding try (from the first one with more PEs than cores),
         * before progress (a first pass through MPI may be long): with busy processes
         * beside it a yield can cost a time slice, so 64 tries may outlast a whole long
         * wait. The clock costs little beside a yield. */
        if (may && !napping && spins >= yield)
            napping = long_enough(spins, &since);
        if (spins % every == 0)
            shmemi_progress();
        if (napping)
            cn_nap(l, e);
        else if (spins >= yield)
            sched_yield();
        if (dog && (spins & 255) == 0) {
            if (t0 == 0)
                t0 = MPI_Wtime();
            else if (MPI_Wtime() - t0 > limit)
                cn_watchdog_fire(c, g, routine, MPI_Wtime() - t0);
        }
    }
}

enum { CN_SAME_SIZE = 1 };

/* Fold peer j's header p of a step into the verdict: the lowest PE that rejected its
 * arguments, and the first difference from this PE's kind, size (CN_SAME_SIZE) or root. */
static inline void cn_check(const cn_line_t *p, int j, uint64_t kind, uint64_t size,
                            int64_t root, int flags, shmemi_agree_verdict_t *v)
{
    if (p->bad && (v->first_bad < 0 || j < v->first_bad))
        v->first_bad = j;
    if (v->differs < 0 && p->kind != kind)
        v->differs = 0;
    else if (v->differs < 0 && (flags & CN_SAME_SIZE) && p->size != size)
        v->differs = 1;
    else if (v->differs < 0 && p->root != root)
        v->differs = 2;
}

/* Before this PE writes a slot again: when it left its last step without waiting for
 * the peers (the root of shmemi_cnode_bcast's 1.4 form), wait until every peer has
 * posted that step, which a peer does after it finished reading the step before, whose
 * slots the next step reuses. The peers' headers of that step are still there (they
 * cannot post the step after before this PE posts its next), so a PE that rejected its
 * arguments, or called another routine, size or root, is reported then. */
static void cn_catch_up(const shmemi_coll_t *g)
{
    struct shmemi_cnode *c = g->node;
    const char *routine = c->ahead;
    if (SHMEMI_LIKELY(routine == NULL))
        return;
    c->ahead = NULL;
    uint64_t e = c->epoch;
    const cn_line_t *mine = cn_slot(c, c->me, e);
    shmemi_agree_verdict_t v = {-1, -1};
    for (int k = 1; k < c->n; k++) {
        int j = (c->me + k) % c->n;
        const cn_line_t *p = cn_slot(c, j, e);
        shmemi_cn_wait(c, g, routine, 1, p, e);
        cn_check(p, j, mine->kind, mine->size, mine->root, CN_SAME_SIZE, &v);
    }
    if (SHMEMI_UNLIKELY(v.first_bad >= 0 || v.differs >= 0)) /* as that routine reports */
        shmemi_agree_report(routine, c->me, c->ahead_loud, (int)mine->bad, &v);
}

/* Write this PE's header of its next step (its payload is at cn_out already) and post
 * it; the step's epoch. */
static uint64_t cn_announce(struct shmemi_cnode *c, int bad, uint64_t kind, uint64_t size,
                            int64_t root, uint64_t extra)
{
    uint64_t e = ++c->epoch;
    cn_line_t *l = cn_slot(c, c->me, e);
    l->kind = kind;
    l->size = size;
    l->extra = extra;
    l->root = root;
    l->bad = (uint32_t)bad;
    shmemi_cn_post(l, e);
    return e;
}

/* Post this PE's step (payload already at cn_out) with its header, wait for every peer's
 * and check the headers: 0 when every PE accepted its arguments and kind (and size,
 * with CN_SAME_SIZE, and root) agree, else -1 on every PE, reported as agree.c does. */
static int cn_round(const char *routine, const shmemi_coll_t *g, int watchdog, int bad,
                    uint64_t kind, uint64_t size, int64_t root, uint64_t extra, int flags)
{
    struct shmemi_cnode *c = g->node;
    cn_catch_up(g);
    uint64_t e = cn_announce(c, bad, kind, size, root, extra);
    shmemi_agree_verdict_t v = {-1, -1};
    for (int k = 1; k <= c->n; k++) {
        int j = (c->me + k) % c->n; /* start past me: the PEs do not all poll PE 0 first */
        const cn_line_t *p = cn_slot(c, j, e);
        if (j != c->me)
            shmemi_cn_wait(c, g, routine, watchdog, p, e);
        cn_check(p, j, kind, size, root, flags, &v);
    }
    if (SHMEMI_LIKELY(v.first_bad < 0 && v.differs < 0))
        return 0;
    shmemi_agree_report(routine, g->me, g->loud, bad, &v);
    return -1;
}

/* A step with nothing in it: after it every peer has finished the step before, so
 * memory it read may change (closes the direct-copy forms). */
static void cn_close(const char *routine, const shmemi_coll_t *g)
{
    (void)cn_round(routine, g, 1, 0, 0, 0, 0, 0, 0);
}

/* Stage this PE's nbytes from src (none when src is NULL or its arguments were bad) in
 * its slot when they fit, once its last step's slots are free (cn_catch_up); the
 * caller then posts the step. */
static void cn_stage(const shmemi_coll_t *g, int bad, const void *src, size_t nbytes)
{
    shmemi_cn_sync_windows();
    cn_catch_up(g);
    if (!bad && src && nbytes && nbytes <= CN_CAP)
        memcpy(cn_out(g->node), src, nbytes);
}

/* The first step of the engines that stage a payload: staged, then the round with the
 * agreement (whose own cn_catch_up has nothing left to do). */
static int cn_first(const char *routine, const shmemi_coll_t *g, int bad, const void *src,
                    size_t nbytes, uint64_t size, int64_t root, uint64_t extra, int flags)
{
    cn_stage(g, bad, src, nbytes);
    return cn_round(routine, g, 1, bad, shmemi_agree_kind(routine), size, root, extra, flags);
}

/* pe's nbytes of src (its symmetric buffer) after the first step: from its slot when
 * they fit, else straight from its buffer as mapped here. */
static inline const void *cn_from(const struct shmemi_cnode *c, int pe, const void *src,
                                  size_t nbytes)
{
    return nbytes <= CN_CAP ? (const void *)cn_in(c, pe) : (const void *)cn_peer(c, pe, src);
}

/* ---- engines ---- */

int shmemi_cnode_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                       uint64_t root)
{
    return cn_round(routine, g, 1, bad, shmemi_agree_kind(routine), size, (int64_t)root, 0,
                    CN_SAME_SIZE);
}

int shmemi_cnode_barrier(const char *routine, const shmemi_coll_t *g, int watchdog)
{
    static uint64_t kind;
    if (SHMEMI_UNLIKELY(kind == 0))
        kind = shmemi_agree_kind("barrier");
    int rc = cn_round(routine, g, watchdog, 0, kind, 0, 0, 0, CN_SAME_SIZE);
    shmemi_cn_sync_windows();
    return rc;
}

int shmemi_cnode_bcast(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                       const void *source, size_t nbytes, int root, int write_root)
{
    struct shmemi_cnode *c = g->node;
    int am_root = c->me == root, small = nbytes <= CN_CAP;
    if (am_root && !write_root && small) {
        /* The 1.4 form: the root writes nothing and returns nothing, so no PE's verdict
         * changes what it does. Its data in its slot, it posts and leaves, as the roots
         * of OSHMEM and SOS return once their data are on the way; the others still
         * wait for every PE's header (the agreement: none writes unless all accepted).
         * The root's next step waits for them (cn_catch_up), and reports there a PE that
         * rejected its arguments. Larger data are read from its source: it waits. */
        cn_stage(g, bad, source, nbytes);
        (void)cn_announce(c, bad, shmemi_agree_kind(routine), nbytes, root, 0);
        c->ahead = routine;
        c->ahead_loud = g->loud;
        return bad ? -1 : 0;
    }
    if (cn_first(routine, g, bad, am_root ? source : NULL, nbytes, nbytes, root, 0,
                 CN_SAME_SIZE))
        return -1;
    if (nbytes) {
        if (!am_root)
            memcpy(dest, cn_from(c, root, source, nbytes), nbytes);
        else if (write_root && dest != source)
            memmove(dest, source, nbytes);
        if (!small)
            cn_close(routine, g);
    }
    shmemi_cn_sync_windows();
    return 0;
}

int shmemi_cnode_fcollect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                          const void *source, size_t nbytes)
{
    struct shmemi_cnode *c = g->node;
    if (cn_first(routine, g, bad, source, nbytes, nbytes, 0, 0, CN_SAME_SIZE))
        return -1;
    if (nbytes == 0)
        return 0;
    for (int j = 0; j < c->n; j++)
        memcpy((char *)dest + (size_t)j * nbytes,
               j == c->me ? source : cn_from(c, j, source, nbytes), nbytes);
    if (nbytes > CN_CAP)
        cn_close(routine, g);
    shmemi_cn_sync_windows();
    return 0;
}

int shmemi_cnode_collect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                         const void *source, size_t nbytes, uint64_t room)
{
    struct shmemi_cnode *c = g->node;
    /* The sizes differ by design; a bad source is its own verdict. */
    if (cn_first(routine, g, bad, source, nbytes, bad ? UINT64_MAX : nbytes, 0, room, 0))
        return -1;
    size_t total = 0, before = 0, big = 0;
    for (int j = 0; j < c->n; j++) {
        const cn_line_t *p = cn_slot(c, j, c->epoch);
        if (j == c->me)
            before = total;
        if (__builtin_add_overflow(total, (size_t)p->size, &total)) {
            if (g->loud)
                shmemi_bad_arg(routine, "total size overflows");
            else
                shmemi_debug(routine, "total size overflows");
            return -1;
        }
        big |= p->size > CN_CAP;
    }
    for (int j = 0; j < c->n; j++) {
        if (total > cn_slot(c, j, c->epoch)->extra) {
            char msg[160];
            if (j == c->me)
                snprintf(msg, sizeof msg,
                         "dest %p cannot take %zu bytes (NULL, not symmetric, too small, or "
                         "overlapping source)", dest, total);
            else
                snprintf(msg, sizeof msg, "team PE %d passed a dest that cannot take %zu bytes",
                         j, total);
            if (g->loud)
                shmemi_bad_arg(routine, "%s", msg);
            else
                shmemi_debug(routine, "%s", msg);
            return -1;
        }
    }
    size_t at = 0;
    for (int j = 0; j < c->n; j++) {
        size_t sz = (size_t)cn_slot(c, j, c->epoch)->size;
        if (sz == 0)
            continue;
        if (j == c->me)
            memcpy((char *)dest + before, source, sz);
        else
            memcpy((char *)dest + at, cn_from(c, j, source, sz), sz);
        at += sz;
    }
    if (big)
        cn_close(routine, g);
    shmemi_cn_sync_windows();
    return 0;
}

/* Element k of block j of a strided alltoall buffer. */
static inline size_t a2a_off(size_t j, size_t k, size_t nelems, ptrdiff_t stride, size_t esize)
{
    return (j * nelems + k) * (size_t)stride * esize;
}

int shmemi_cnode_alltoalls(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                           const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                           size_t esize)
{
    struct shmemi_cnode *c = g->node;
    size_t n = (size_t)c->n, blk = nelems * esize; /* no overflow: checked by the caller */
    int small = !bad && blk <= CN_CAP / n;
    shmemi_cn_sync_windows();
    cn_catch_up(g);
    if (small && blk) { /* pack my n blocks contiguously */
        unsigned char *o = cn_out(c);
        for (size_t j = 0; j < n; j++) {
            if (sst == 1)
                memcpy(o + j * blk, (const char *)source + a2a_off(j, 0, nelems, 1, esize), blk);
            else
                for (size_t k = 0; k < nelems; k++)
                    memcpy(o + j * blk + k * esize,
                           (const char *)source + a2a_off(j, k, nelems, sst, esize), esize);
        }
    }
    if (cn_round(routine, g, 1, bad, shmemi_agree_kind(routine), nelems, 0, 0, CN_SAME_SIZE))
        return -1;
    if (nelems == 0)
        return 0;
    small = blk <= CN_CAP / n; /* the same on every PE now that nelems agrees */
    size_t me = (size_t)c->me;
    for (size_t j = 0; j < n; j++) {
        /* block me of PE j's source lands in block j of my dest */
        const char *s;
        ptrdiff_t ss;
        if (j == me) {
            s = (const char *)source + a2a_off(me, 0, nelems, sst, esize);
            ss = sst;
        } else if (small) {
            s = (const char *)cn_in(c, (int)j) + me * blk;
            ss = 1;
        } else {
            s = cn_peer(c, (int)j, source) + a2a_off(me, 0, nelems, sst, esize);
            ss = sst;
        }
        char *d = (char *)dest + a2a_off(j, 0, nelems, dst, esize);
        if (ss == 1 && dst == 1)
            memcpy(d, s, blk);
        else
            for (size_t k = 0; k < nelems; k++)
                memcpy(d + k * (size_t)dst * esize, s + k * (size_t)ss * esize, esize);
    }
    if (!small)
        cn_close(routine, g);
    shmemi_cn_sync_windows();
    return 0;
}

int shmemi_cnode_reduce(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                        const void *source, size_t count, size_t esize, shmemi_rop_fn fn)
{
    struct shmemi_cnode *c = g->node;
    size_t nbytes = count * esize; /* checked by the caller */
    int small = nbytes <= CN_CAP;
    if (cn_first(routine, g, bad, source, nbytes, count, 0, 0, CN_SAME_SIZE))
        return -1;
    if (count == 0)
        return 0;
    if (small) {
        /* Every PE folds all contributions in PE order: the same bits everywhere. */
        memcpy(dest, cn_in(c, 0), nbytes);
        for (int j = 1; j < c->n; j++)
            fn(dest, cn_in(c, j), count);
    } else {
        /* PE i reduces elements [lo_i, hi_i) of every source into its own dest, then
         * every PE copies the other pieces from their owners' dests. Starting from its
         * own source keeps an in-place reduction right (nobody else reads that piece of
         * this PE's source). */
        size_t n = (size_t)c->n, me = (size_t)c->me;
        size_t lo = count * me / n, hi = count * (me + 1) / n;
        if (hi > lo) {
            char *d = (char *)dest + lo * esize;
            if (dest != source)
                memcpy(d, (const char *)source + lo * esize, (hi - lo) * esize);
            for (size_t j = 0; j < n; j++)
                if (j != me)
                    fn(d, cn_peer(c, (int)j, source) + lo * esize, hi - lo);
        }
        cn_close(routine, g);
        for (size_t j = 0; j < n; j++) {
            size_t l = count * j / n, h = count * (j + 1) / n;
            if (j != me && h > l)
                memcpy((char *)dest + l * esize, cn_peer(c, (int)j, dest) + l * esize,
                       (h - l) * esize);
        }
        cn_close(routine, g);
    }
    shmemi_cn_sync_windows();
    return 0;
}

int shmemi_cnode_scan(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                      const void *source, size_t count, size_t esize, shmemi_rop_fn fn,
                      int exclusive)
{
    struct shmemi_cnode *c = g->node;
    size_t nbytes = count * esize;
    int small = nbytes <= CN_CAP;
    if (cn_first(routine, g, bad, source, nbytes, count, 0, 0, CN_SAME_SIZE))
        return -1;
    if (count == 0)
        return 0;
    if (!small)
        return 1;
    int last = exclusive ? c->me - 1 : c->me;
    if (last < 0) {
        memset(dest, 0, nbytes); /* the sum's identity on PE 0 */
    } else {
        memcpy(dest, cn_in(c, 0), nbytes);
        for (int j = 1; j <= last; j++)
            fn(dest, cn_in(c, j), count);
    }
    shmemi_cn_sync_windows();
    return 0;
}

/* ---- team barrier (shmem_barrier_all, shmem_sync_all, shmem_team_sync) ---- */

int shmemi_team_barrier(struct shmemq_team *team, const char *routine, int watchdog)
{
    shmemi_coll_t g = {team->comm, team->my_pe, team->n_pes, 0, NULL, NULL};
    g.node = shmemi_cnode_get(team, routine, watchdog);
    g.hier = team->chier;
    if (g.node)
        return shmemi_cnode_barrier(routine, &g, watchdog) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
    if (g.hier)
        return shmemi_chier_barrier(routine, &g, watchdog) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
    int rc = watchdog ? shmemi_agree_barrier(team->comm, routine)
                      : shmemi_barrier_comm(team->comm);
    shmemi_cn_sync_windows();
    return rc;
}

/* How node steps wait, for shmemq_info. */
static const char *wait_how(char *buf, size_t n)
{
    wait_policy();
    const char *nap = cw.nap == CW_NEVER ? "never nap (SHMEMQ_COLL_WAIT=spin)"
                      : !may_nap() ? "never nap (PEs off the node need this PE's MPI progress)"
                      : cw.nap == CW_SOON ? "nap on a futex after 64 tries (SHMEMQ_COLL_WAIT=sleep)"
                                          : "nap on a futex after 2 ms";
    snprintf(buf, n, "waits: %s; %s; data-queue flushes %s (%d PEs on this machine, %ld cores)",
             cw.over ? "yield at once" : "spin, then yield", nap,
             shmemi_coll_waits_nap() ? "nap 20 us a try after 300 us" : "yield",
             shmemi.host_pes, sysconf(_SC_NPROCESSORS_ONLN));
    return buf;
}

void shmemi_coll_describe(char *buf, size_t n)
{
    struct shmemi_cnode *c = shmemi_cnode_get(&shmemi.team_world, "shmemq_info", 1);
    char wait[224];
    if (c)
        snprintf(buf, n, "node shared memory (WORLD is one node; %d KiB slots per PE, "
                 "larger data copied between mapped heaps; %s)", CN_SLOT / 1024,
                 wait_how(wait, sizeof wait));
    else if (node_allowed()) {
        char how[400];
        shmemi_chier_describe(&shmemi.team_world, how, sizeof how);
        snprintf(buf, n, "WORLD spans nodes: %s; node shared memory for teams inside one node "
                 "(%s)", how, wait_how(wait, sizeof wait));
    }
    else
        snprintf(buf, n, "MPI collectives on every team (SHMEMQ_COLL_NODE=0)");
}
