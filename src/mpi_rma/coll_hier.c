/* coll_hier.c: hierarchical team collectives for teams that span nodes
 * (docs/collectives.md has the algorithm, the choice rule and the numbers).
 *
 * The team's PEs on each node form a node group with its own shared-memory segment
 * (coll_node.c's, through shmemi_cn_alloc); the group's lowest team PE is its leader,
 * and the leaders form one communicator, in team order. A collective is
 *   gather:  every PE of the group posts its header (and small data) in its slot; the
 *            leader waits for them all;
 *   leaders: the leader folds its group's part, the leaders agree on the arguments
 *            (agree.c's exchange, with each node's range of values) and run the MPI
 *            collective among themselves;
 *   release: the leader posts the verdict (and small results); the others wait for it.
 * Larger data is read straight from the peers' mapped symmetric buffers, and then a
 * closing gather keeps the leader's buffer in place until its group has copied it.
 *
 * Slots are reused without barriers: a leader writes its slots only in releases, the
 * others only in gathers, and each step waits for the other side's previous one, so a
 * slot is never written while its previous content may still be read.
 *
 * The agreement always runs this way (it is cheaper than the flat one), so PEs that
 * passed different sizes still meet in the same calls; the data then moves
 * hierarchically or, where the choice rule says the flat MPI collective is faster at
 * this size, by the caller on the team's communicator. Waits progress the library
 * (shmemi_cn_wait, shmemi_agree_wait). */
#include "coll_node.h"
#include "agree.h"
#include <limits.h>

enum { H_BCAST, H_REDUCE, H_FCOLLECT, H_KINDS };
enum { H_HIER = 0, H_FLAT = 1 }; /* the data path of a call */

/* The auto choice is measured, per team, kind and size class (bytes rounded up to a
 * power of two; per PE for fcollect): after H_WARMUP hierarchical calls (connections,
 * cold caches), the leaders run H_TRIALS calls of each path, alternating, time each
 * whole call (from entry to return, flat data movement included), and at the last trial
 * agree with one allreduce among themselves on the slowest leader's fastest call of each
 * path; the faster path serves every later call of the class. Every leader makes the
 * same calls in the same order, so they all agree at the same call and choose alike;
 * the other PEs learn the path from the release. Barriers are measured the same way by
 * every PE (shmemi_chier_barrier); collect is always hierarchical (each PE's size
 * differs, so no size class is known before its agreement). */
enum { H_WARMUP = 8, H_TRIALS = 8, H_CLASSES = 64 };

typedef struct {
    uint32_t calls;  /* calls of the class so far, warm-up included */
    int8_t choice;   /* H_HIER or H_FLAT once measured; -1 before */
    double t[2];     /* per path, this PE's fastest trial call (seconds; 0: none yet) */
} h_tune_t;

/* The path of call number `calls` of an undecided class: hierarchical while warming up
 * (first calls pay for connections and cold caches), then alternating. */
static inline int h_trial_path(const h_tune_t *t)
{
    return t->calls < H_WARMUP ? H_HIER : (int)((t->calls - H_WARMUP) & 1) ? H_FLAT : H_HIER;
}

/* Record one call of t's class on path p that took dt seconds; 1 when it was the last
 * trial (the class is then decided by h_decide). */
static inline int h_record(h_tune_t *t, int p, double dt)
{
    if (t->calls >= H_WARMUP && (t->t[p] == 0 || dt < t->t[p]))
        t->t[p] = dt;
    return ++t->calls == H_WARMUP + 2 * H_TRIALS;
}

struct shmemi_chier {
    struct shmemq_team node; /* the team's PEs on this node (comm, my_pe, n_pes, world_pe) */
    struct shmemi_cnode *c;  /* their segment */
    MPI_Comm leaders;        /* one PE per node, in team order; MPI_COMM_NULL elsewhere */
    int team_me, team_n;
    int nnodes, my_node, maxper;
    int contiguous; /* every node's team PEs are consecutive in team order */
    int forced;     /* SHMEMQ_COLL_HIER=1 */
    int *node_of;   /* team PE -> node (its leader's rank in leaders) */
    int *first;     /* node -> its lowest team PE */
    int *count;     /* node -> its team PEs */
    int *team_pe;   /* node rank -> team PE, for this node */
    h_tune_t tune[H_KINDS][H_CLASSES];
    h_tune_t bar;    /* barriers and syncs (one class) */
    h_tune_t *trial; /* the class whose trial path this leader's current call runs */
    int trial_path;
    double trial_t0; /* when it chose it (the agreement before is the same on both paths) */
};

/* ---- the setting and the choice ---- */

/* SHMEMQ_COLL_HIER: 2 auto (default), 1 always, 0 never; read at each team's setup.
 * Anything else is auto (shmem_init said so: settings.c). */
static int hier_mode(void)
{
    const char *s = getenv("SHMEMQ_COLL_HIER");
    return s && strcmp(s, "0") == 0 ? 0 : s && strcmp(s, "1") == 0 ? 1 : 2;
}

static int size_class(size_t bytes)
{
    int k = 0;
    while (k < H_CLASSES - 1 && ((size_t)1 << k) < bytes)
        k++;
    return k;
}

/* The leader, once the arguments are agreed: the path of this call of kind `what`. A
 * trial call is timed by shmemi_chier_timed when the whole collective returns. */
static int h_choose(struct shmemi_chier *h, int what, size_t bytes)
{
    if (h->forced)
        return H_HIER;
    h_tune_t *t = &h->tune[what][size_class(bytes)];
    if (t->choice >= 0)
        return t->choice;
    h->trial = t;
    h->trial_path = h_trial_path(t);
    h->trial_t0 = shmemi_wtime(); /* only trial calls read the clock */
    return h->trial_path;
}

static const char *kind_name[H_KINDS] = {"broadcast", "reduce", "fcollect"};

static const char *team_name(const struct shmemq_team *team)
{
    return team == &shmemi.team_world ? "WORLD" : team == &shmemi.team_shared ? "SHARED" : "split";
}

void shmemi_chier_describe(const struct shmemq_team *team, char *buf, size_t n)
{
    const struct shmemi_chier *h = team->chier;
    if (h == NULL) {
        snprintf(buf, n, "flat MPI (%s)",
                 hier_mode() == 0 ? "SHMEMQ_COLL_HIER=0" : "one team PE per node");
        return;
    }
    int fc = h->contiguous, co = h->contiguous && (size_t)h->team_n * 24 <= CN_CAP;
    int len = snprintf(buf, n, "hierarchical (%d nodes, <= %d PEs each; %s): %sbarrier, "
                       "bcast/reduce%s %s",
                       h->nnodes, h->maxper, h->forced ? "SHMEMQ_COLL_HIER=1" : "auto",
                       co ? "collect; " : "", fc ? "/fcollect" : "",
                       h->forced ? "at any size"
                                 : "hierarchical or flat MPI per size class, as measured by "
                                   "the first calls (chosen so far:");
    if (h->forced)
        return;
    int any = h->bar.choice >= 0;
    if (any && len > 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, " barrier %s",
                        h->bar.choice == H_HIER ? "hier" : "flat");
    for (int k = 0; k < H_KINDS; k++)
        for (int j = 0; j < H_CLASSES; j++)
            if (h->tune[k][j].choice >= 0 && len > 0 && (size_t)len < n) {
                len += snprintf(buf + len, n - (size_t)len, " %s<=%zuB %s", kind_name[k],
                                (size_t)1 << j, h->tune[k][j].choice == H_HIER ? "hier" : "flat");
                any = 1;
            }
    if (len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "%s)", any ? "" : " none");
}

/* ---- the measured choice ---- */

static void h_decide(const shmemi_coll_t *g, h_tune_t *t, MPI_Comm comm, const char *routine,
                     const char *what, size_t bytes);

void shmemi_chier_timed(const shmemi_coll_t *g, int rc, const char *routine)
{
    struct shmemi_chier *h = g->hier;
    if (h == NULL || h->trial == NULL)
        return; /* not a leader, or not a trial call */
    h_tune_t *t = h->trial;
    h->trial = NULL;
    if (rc != 0)
        return; /* refused or failed on every PE: not timed, tried again */
    if (!h_record(t, h->trial_path, shmemi_wtime() - h->trial_t0))
        return;
    int k = (int)((t - &h->tune[0][0]) / H_CLASSES), j = (int)((t - &h->tune[0][0]) % H_CLASSES);
    h_decide(g, t, h->leaders, routine, kind_name[k], (size_t)1 << j);
}

/* The verdict of a class's trials: per path, the slowest of comm's members' fastest
 * trial (an MPI_Iallreduce all of comm reach at the same call; the fastest call is the
 * path's own cost, the others add preemption and late arrivals); the faster path from
 * now on. */
static void h_decide(const shmemi_coll_t *g, h_tune_t *t, MPI_Comm comm, const char *routine,
                     const char *what, size_t bytes)
{
    double mine[2] = {t->t[H_HIER], t->t[H_FLAT]}, all[2] = {mine[0], mine[1]};
    MPI_Request req;
    if (MPI_Iallreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm, &req) != MPI_SUCCESS ||
        shmemi_agree_wait(&req, comm, routine) != MPI_SUCCESS) {
        all[0] = all[1] = 0; /* every member sees the failure: hierarchical on all */
        shmemi_debug(routine, "timing exchange failed: hierarchical from now on");
    }
    t->choice = all[H_HIER] <= all[H_FLAT] ? H_HIER : H_FLAT;
    if (shmemi.debug && g->me == 0) {
        char sz[40] = "";
        if (bytes)
            snprintf(sz, sizeof sz, " of <= %zu B", bytes);
        fprintf(stderr, "[shmemq PE %d] %s: team of %d PEs spans nodes: %s%s measured over %d "
                "calls of each path: hierarchical %.2f us, flat %.2f us (fastest call, slowest "
                "PE): %s from now on\n",
                shmemi.my_pe, routine, g->n, what, sz, H_TRIALS, all[H_HIER] * 1e6,
                all[H_FLAT] * 1e6, t->choice == H_HIER ? "hierarchical" : "flat MPI");
    }
}

static void h_say(const struct shmemq_team *team, const char *routine, const char *what)
{
    if (shmemi.debug && team->my_pe == 0)
        fprintf(stderr, "[shmemq PE %d] %s: team of %d PEs (%s) spans nodes: collectives %s\n",
                shmemi.my_pe, routine, team->n_pes, team_name(team), what);
}

/* ---- setup and teardown ---- */

static void h_free(struct shmemi_chier *h)
{
    shmemi_cn_destroy(h->c);
    if (h->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&h->leaders);
    if (h->node.comm != MPI_COMM_NULL)
        MPI_Comm_free(&h->node.comm);
    free(h->node.world_pe);
    free(h->node_of);
    free(h);
}

/* Collective over team (every member is here: coll_node.c's setup just synchronised
 * them). Leaves team->chier NULL where the flat collectives stay. */
void shmemi_chier_setup(struct shmemq_team *team, const char *routine)
{
    int mode = hier_mode(), n = team->n_pes;
    if (mode == 0) {
        h_say(team, routine, "through MPI (SHMEMQ_COLL_HIER=0)");
        return;
    }
    /* The node: the lowest world PE this PE maps (the same on every PE of a node whose
     * mappings all worked; the check below catches the rest). */
    int color = shmemi.my_pe;
    for (int w = 0; w < shmemi.n_pes; w++)
        if (shmemi.node_base[0][w] && shmemi.node_base[1][w]) {
            color = w;
            break;
        }
    struct shmemi_chier *h = calloc(1, sizeof *h);
    int *colors = malloc(sizeof(int) * (size_t)n);
    if (!h || !colors)
        shmemi_fatal(routine, "out of memory"); /* the peers are in the calls below */
    h->leaders = h->node.comm = MPI_COMM_NULL;
    h->team_me = team->my_pe;
    h->team_n = n;
    h->forced = mode == 1;
    SHMEMI_MPI_CHECK(routine, MPI_Allgather(&color, 1, MPI_INT, colors, 1, MPI_INT, team->comm));
    SHMEMI_MPI_CHECK(routine, MPI_Comm_split(team->comm, color, team->my_pe, &h->node.comm));
    MPI_Comm_rank(h->node.comm, &h->node.my_pe);
    MPI_Comm_size(h->node.comm, &h->node.n_pes);
    if (shmemi_team_fill_world_map(&h->node) != 0)
        shmemi_fatal(routine, "out of memory");
    int ok = 1;
    for (int i = 0; i < h->node.n_pes && ok; i++) {
        int w = h->node.world_pe[i];
        ok = shmemi.node_base[0][w] != NULL && shmemi.node_base[1][w] != NULL;
    }
    /* Nodes, numbered by their first team PE; sizes; contiguity. */
    h->node_of = malloc(sizeof(int) * (3 * (size_t)n + (size_t)h->node.n_pes));
    if (!h->node_of)
        shmemi_fatal(routine, "out of memory");
    h->first = h->node_of + n;
    h->count = h->first + n;
    h->team_pe = h->count + n;
    h->contiguous = 1;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < h->nnodes && colors[h->first[k]] != colors[i])
            k++;
        if (k == h->nnodes) {
            h->first[k] = i;
            h->count[k] = 0;
            h->nnodes++;
        } else if (colors[i - 1] != colors[i]) {
            h->contiguous = 0; /* node k came back after another */
        }
        h->node_of[i] = k;
        h->count[k]++;
        if (h->count[k] > h->maxper)
            h->maxper = h->count[k];
    }
    h->my_node = h->node_of[team->my_pe];
    for (int i = 0, j = 0; i < n; i++)
        if (h->node_of[i] == h->my_node)
            h->team_pe[j++] = i;
    free(colors);
    int all = 0;
    SHMEMI_MPI_CHECK(routine, MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, team->comm));
    const char *why = !all ? "through MPI (some node peers' memory is not mapped)"
                      : h->nnodes < 2 ? "through MPI (one node)" /* not reached: coll_node.c's */
                      : h->maxper < 2 && !h->forced
                          ? "through MPI (one team PE per node: no node step to share)"
                          : NULL;
    if (why) {
        h_free(h);
        h_say(team, routine, why);
        return;
    }
    SHMEMI_MPI_CHECK(routine, MPI_Comm_split(team->comm, h->node.my_pe == 0 ? 0 : MPI_UNDEFINED,
                                             team->my_pe, &h->leaders));
    if (h->leaders != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(h->leaders, MPI_ERRORS_RETURN);
    h->c = shmemi_cn_alloc(&h->node, routine);
    for (int k = 0; k < H_KINDS; k++)
        for (int j = 0; j < H_CLASSES; j++)
            h->tune[k][j].choice = -1;
    h->bar.choice = -1;
    team->chier = h;
    if (shmemi.debug && team->my_pe == 0) {
        char buf[512];
        shmemi_chier_describe(team, buf, sizeof buf);
        h_say(team, routine, buf);
    }
}

void shmemi_chier_free(struct shmemq_team *team)
{
    if (team->chier)
        h_free(team->chier);
    team->chier = NULL;
}

/* ---- steps ---- */

static shmemi_coll_t node_group(const struct shmemi_chier *h, int loud)
{
    shmemi_coll_t ng = {h->node.comm, h->node.my_pe, h->node.n_pes, loud, h->c, NULL};
    return ng;
}

/* Every PE but the leader posts its header (payload staged at cn_out before); the
 * leader waits for them. */
static void h_gather(struct shmemi_chier *h, const shmemi_coll_t *ng, const char *routine,
                     int watchdog, uint64_t kind, uint64_t size, int64_t root, int bad)
{
    struct shmemi_cnode *c = h->c;
    uint64_t e = ++c->epoch;
    if (c->me != 0) {
        cn_line_t *l = cn_slot(c, c->me, e);
        l->kind = kind;
        l->size = size;
        l->root = root;
        l->bad = (uint32_t)bad;
        shmemi_cn_post(l, e);
        return;
    }
    for (int j = 1; j < c->n; j++)
        shmemi_cn_wait(c, ng, routine, watchdog, cn_slot(c, j, e), e);
}

/* What a release says. */
enum { H_OK = 0, H_REFUSED = 1, H_FAILED = 2 };

/* The leader posts (payload staged before) its verdict and the data path; the others
 * wait for it. Returns the leader's line. */
static const cn_line_t *h_release(struct shmemi_chier *h, const shmemi_coll_t *ng,
                                  const char *routine, int watchdog, int status, int path,
                                  const shmemi_agree_verdict_t *v)
{
    struct shmemi_cnode *c = h->c;
    uint64_t e = ++c->epoch;
    cn_line_t *l = cn_slot(c, 0, e);
    if (c->me == 0) {
        l->kind = (uint64_t)path;
        l->size = (uint64_t)(v->first_bad + 1);
        l->root = v->differs;
        l->bad = (uint32_t)status;
        shmemi_cn_post(l, e);
    } else {
        shmemi_cn_wait(c, ng, routine, watchdog, l, e);
    }
    return l;
}

/* The leader, after the gather: its node's verdict, then the leaders' exchange (with
 * nextra words of data riding on it). H_OK, H_REFUSED (v says why) or H_FAILED. */
static int h_agree(struct shmemi_chier *h, const char *routine, int bad, uint64_t kind,
                   uint64_t size, int64_t root, const uint64_t *extra_in, uint64_t *extra_out,
                   int nextra, shmemi_agree_verdict_t *v)
{
    struct shmemi_cnode *c = h->c;
    uint64_t vmax[3] = {kind, size, (uint64_t)root}, vmin[3] = {kind, size, (uint64_t)root};
    int first_bad = bad ? h->team_me : -1;
    for (int j = 1; j < c->n; j++) {
        const cn_line_t *l = cn_slot(c, j, c->epoch);
        uint64_t x[3] = {l->kind, l->size, (uint64_t)l->root};
        if (l->bad && (first_bad < 0 || h->team_pe[j] < first_bad))
            first_bad = h->team_pe[j];
        for (int i = 0; i < 3; i++) {
            vmax[i] = x[i] > vmax[i] ? x[i] : vmax[i];
            vmin[i] = x[i] < vmin[i] ? x[i] : vmin[i];
        }
    }
    if (shmemi_agree_exchange(routine, h->leaders, h->team_n, first_bad, vmax, vmin, 3,
                              extra_in, extra_out, nextra, v))
        return H_FAILED;
    return v->first_bad >= 0 || v->differs >= 0 ? H_REFUSED : H_OK;
}

/* Everyone after the release: 0 go on (*path set), -1 the collective is refused (said
 * as agree.c says it). */
static int h_verdict(const struct shmemi_chier *h, const shmemi_coll_t *g, const char *routine,
                     int bad, const cn_line_t *l, int *path)
{
    if (SHMEMI_LIKELY(l->bad == H_OK)) {
        *path = (int)l->kind;
        return 0;
    }
    if (l->bad == H_REFUSED) {
        shmemi_agree_verdict_t v = {(int)l->size - 1, (int)l->root};
        shmemi_agree_report(routine, h->team_me, g->loud, bad, &v);
    } else {
        shmemi_debug(routine, "the leaders' MPI step failed");
    }
    return -1;
}

/* A closing gather: the leader's buffer stays put until its group has copied it. */
static void h_close(struct shmemi_chier *h, const shmemi_coll_t *ng, const char *routine)
{
    h_gather(h, ng, routine, 1, 0, 0, 0, 0);
}

static int h_wait(const char *routine, int rc, MPI_Request *req)
{
    if (rc == MPI_SUCCESS)
        rc = shmemi_wait_request(req);
    if (rc != MPI_SUCCESS)
        shmemi_debug(routine, "MPI collective among the node leaders failed (code %d)", rc);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* The leader after starting its MPI step (rc, req): wait for it, then stage the result
 * for the release when it fits a slot. H_OK or H_FAILED. */
static int h_leaders_done(struct shmemi_chier *h, const char *routine, int rc, MPI_Request *req,
                          const void *result, size_t bytes)
{
    if (h_wait(routine, rc, req))
        return H_FAILED;
    if (bytes <= CN_CAP)
        memcpy(cn_out(h->c), result, bytes);
    return H_OK;
}

/* Everyone after the leaders' step: the release, the verdict, then (hierarchical path,
 * copy set) this PE's bytes of result from the leader's slot or from lbuf (the leader's
 * symmetric buffer that holds the result), and the closing gather for larger results.
 * 0 done, 1 the caller moves the data flat, -1 refused. */
static int h_finish(struct shmemi_chier *h, const shmemi_coll_t *g, const shmemi_coll_t *ng,
                    const char *routine, int bad, int status, int path,
                    const shmemi_agree_verdict_t *v, void *dest, const void *lbuf, size_t bytes,
                    int copy)
{
    const cn_line_t *l = h_release(h, ng, routine, 1, status, path, v);
    if (h_verdict(h, g, routine, bad, l, &path))
        return -1;
    if (path == H_FLAT)
        return 1;
    if (bytes == 0)
        return 0;
    if (copy)
        memcpy(dest, bytes <= CN_CAP ? (const void *)cn_in(h->c, 0) : cn_peer(h->c, 0, lbuf),
               bytes);
    if (bytes > CN_CAP)
        h_close(h, ng, routine);
    shmemi_cn_sync_windows();
    return 0;
}

/* ---- engines ---- */

/* The agreement alone (shmemi_coll_agree): the first step of every engine, no data. */
int shmemi_chier_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                       uint64_t root)
{
    struct shmemi_chier *h = g->hier;
    shmemi_coll_t ng = node_group(h, g->loud);
    uint64_t kind = shmemi_agree_kind(routine);
    shmemi_agree_verdict_t v = {-1, -1};
    int status = H_OK;
    h_gather(h, &ng, routine, 1, kind, size, (int64_t)root, bad);
    if (h->c->me == 0)
        status = h_agree(h, routine, bad, kind, size, (int64_t)root, NULL, NULL, 0, &v);
    return h_finish(h, g, &ng, routine, bad, status, H_HIER, &v, NULL, NULL, 0, 0) < 0 ? -1 : 0;
}

static int h_barrier(struct shmemi_chier *h, const shmemi_coll_t *g, const char *routine,
                     int watchdog)
{
    shmemi_coll_t ng = node_group(h, g->loud);
    shmemi_agree_verdict_t v = {-1, -1};
    int status = H_OK, path;
    h_gather(h, &ng, routine, watchdog, 0, 0, 0, 0);
    if (h->c->me == 0 &&
        (watchdog ? shmemi_agree_barrier(h->leaders, routine) : shmemi_barrier_comm(h->leaders)) !=
            MPI_SUCCESS)
        status = H_FAILED;
    const cn_line_t *l = h_release(h, &ng, routine, watchdog, status, H_HIER, &v);
    int rc = h_verdict(h, g, routine, 0, l, &path);
    shmemi_cn_sync_windows();
    return rc;
}

/* The barrier's choice is measured too, but by every PE (a barrier has no release that
 * could carry the path): all count the calls, so all alternate alike, and all take part
 * in the allreduce of the 8th call. */
int shmemi_chier_barrier(const char *routine, const shmemi_coll_t *g, int watchdog)
{
    struct shmemi_chier *h = g->hier;
    h_tune_t *t = &h->bar;
    if (h->forced || t->choice == H_HIER)
        return h_barrier(h, g, routine, watchdog);
    int path = t->choice >= 0 ? t->choice : h_trial_path(t);
    double t0 = t->choice < 0 ? shmemi_wtime() : 0;
    int rc;
    if (path == H_HIER) {
        rc = h_barrier(h, g, routine, watchdog);
    } else {
        rc = (watchdog ? shmemi_agree_barrier(g->comm, routine) : shmemi_barrier_comm(g->comm)) ==
                     MPI_SUCCESS
                 ? 0
                 : -1;
        shmemi_cn_sync_windows();
    }
    if (t->choice < 0) { /* counted whatever rc says, so the PEs stay in step */
        if (h_record(t, path, shmemi_wtime() - t0))
            h_decide(g, t, g->comm, routine, "barrier", 0);
    }
    return rc;
}

/* The node rank of team PE pe on this node, or -1. */
static int node_rank(const struct shmemi_chier *h, int pe)
{
    for (int j = 0; j < h->c->n; j++)
        if (h->team_pe[j] == pe)
            return j;
    return -1;
}

/* Bytes that ride on the leaders' agreement: 4 per word (agree.h: below 2^63). */
#define H_RIDE (SHMEMI_AGREE_MAX_EXTRA * 4)

int shmemi_chier_bcast(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                       const void *source, size_t nbytes, int root, int write_root)
{
    struct shmemi_chier *h = g->hier;
    struct shmemi_cnode *c = h->c;
    shmemi_coll_t ng = node_group(h, g->loud);
    uint64_t kind = shmemi_agree_kind(routine);
    int am_root = g->me == root, leader = c->me == 0;
    int ride = nbytes <= H_RIDE, small = nbytes <= CN_CAP;
    shmemi_cn_sync_windows();
    if (am_root && !leader && !bad && nbytes && small)
        memcpy(cn_out(c), source, nbytes);
    h_gather(h, &ng, routine, 1, kind, nbytes, root, bad);
    shmemi_agree_verdict_t v = {-1, -1};
    int status = H_OK, path = H_HIER;
    /* Where the leader finds the data for its group: its source when it is the root,
     * else its dest (filled below). */
    int leader_root = root >= 0 && root < g->n && h->team_pe[0] == root;
    if (leader) {
        /* The root's bytes, as this leader sees them, when the root is in its group and
         * accepted its arguments (read only after the agreement, except from a slot). */
        int rj = !bad && root >= 0 && root < g->n ? node_rank(h, root) : -1;
        if (rj > 0 && cn_slot(c, rj, c->epoch)->bad)
            rj = -1;
        const void *rsrc = rj == 0   ? source
                           : rj > 0 ? (small ? (const void *)cn_in(c, rj) : cn_peer(c, rj, source))
                                    : NULL;
        uint64_t in[SHMEMI_AGREE_MAX_EXTRA] = {0}, out[SHMEMI_AGREE_MAX_EXTRA];
        uint32_t part[SHMEMI_AGREE_MAX_EXTRA] = {0};
        int words = ride ? (int)((nbytes + 3) / 4) : 0;
        if (ride && rsrc && nbytes) {
            memcpy(part, rsrc, nbytes);
            for (int i = 0; i < words; i++)
                in[i] = part[i];
        }
        status = h_agree(h, routine, bad, kind, nbytes, root, in, out, words, &v);
        if (status == H_OK && nbytes) {
            if (ride) {
                for (int i = 0; i < words; i++)
                    part[i] = (uint32_t)out[i];
                memcpy(cn_out(c), part, nbytes); /* the group's copy */
                if (!am_root)
                    memcpy(dest, part, nbytes);
            } else if (nbytes > shmemi_coll_limit() ||
                       (path = h_choose(h, H_BCAST, nbytes)) == H_FLAT) {
                path = H_FLAT;
            } else {
                char *buf = leader_root ? (char *)source : (char *)dest;
                if (rj > 0)
                    memcpy(dest, rsrc, nbytes);
                MPI_Request req;
                int rc = MPI_Ibcast(buf, (int)nbytes, MPI_BYTE, h->node_of[root], h->leaders,
                                    &req);
                status = h_leaders_done(h, routine, rc, &req, buf, nbytes);
            }
        }
    }
    int rc = h_finish(h, g, &ng, routine, bad, status, path, &v, dest,
                      leader_root ? source : dest, nbytes, !leader && !am_root);
    if (rc == 0 && am_root && write_root && dest != source && nbytes)
        memmove(dest, source, nbytes);
    return rc;
}

int shmemi_chier_fcollect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                          const void *source, size_t nbytes)
{
    struct shmemi_chier *h = g->hier;
    struct shmemi_cnode *c = h->c;
    shmemi_coll_t ng = node_group(h, g->loud);
    uint64_t kind = shmemi_agree_kind(routine);
    int leader = c->me == 0;
    shmemi_cn_sync_windows();
    if (!leader && !bad && nbytes && nbytes <= CN_CAP)
        memcpy(cn_out(c), source, nbytes);
    h_gather(h, &ng, routine, 1, kind, nbytes, 0, bad);
    shmemi_agree_verdict_t v = {-1, -1};
    int status = H_OK, path = H_HIER;
    size_t total = nbytes * (size_t)g->n; /* no overflow once agreed: the caller checked */
    if (leader) {
        status = h_agree(h, routine, bad, kind, nbytes, 0, NULL, NULL, 0, &v);
        if (status == H_OK && nbytes) {
            /* Team order must be node after node, and byte counts ints. */
            if (!h->contiguous || total > shmemi_coll_limit())
                path = H_FLAT;
            else
                path = h_choose(h, H_FCOLLECT, nbytes);
        }
        if (status == H_OK && nbytes && path == H_HIER) {
            int *counts = malloc(sizeof(int) * 2 * (size_t)h->nnodes);
            if (counts == NULL)
                shmemi_fatal(routine, "out of memory"); /* the peers are on their way */
            int *displs = counts + h->nnodes;
            for (int k = 0; k < h->nnodes; k++) {
                counts[k] = (int)((size_t)h->count[k] * nbytes);
                displs[k] = (int)((size_t)h->first[k] * nbytes);
            }
            for (int j = 0; j < c->n; j++)
                memcpy((char *)dest + (size_t)h->team_pe[j] * nbytes,
                       j == 0 ? source
                       : nbytes <= CN_CAP ? (const void *)cn_in(c, j)
                                          : (const void *)cn_peer(c, j, source),
                       nbytes);
            MPI_Request req;
            int rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dest, counts, displs,
                                     MPI_BYTE, h->leaders, &req);
            status = h_leaders_done(h, routine, rc, &req, dest, total);
            free(counts);
        }
    }
    return h_finish(h, g, &ng, routine, bad, status, path, &v, dest, dest, nbytes ? total : 0,
                    !leader);
}

int shmemi_chier_reduce(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                        const void *source, size_t count, size_t esize, MPI_Datatype dt,
                        MPI_Op op, shmemi_rop_fn fn)
{
    struct shmemi_chier *h = g->hier;
    struct shmemi_cnode *c = h->c;
    shmemi_coll_t ng = node_group(h, g->loud);
    uint64_t kind = shmemi_agree_kind(routine);
    int leader = c->me == 0;
    size_t nbytes = count * esize; /* checked by the caller */
    int small = nbytes <= CN_CAP;
    shmemi_cn_sync_windows();
    if (!leader && !bad && nbytes && small)
        memcpy(cn_out(c), source, nbytes);
    h_gather(h, &ng, routine, 1, kind, count, 0, bad);
    shmemi_agree_verdict_t v = {-1, -1};
    int status = H_OK, path = H_HIER;
    if (leader) {
        status = h_agree(h, routine, bad, kind, count, 0, NULL, NULL, 0, &v);
        if (status == H_OK && count)
            path = count > shmemi_coll_limit() ? H_FLAT : h_choose(h, H_REDUCE, nbytes);
        if (status == H_OK && count && path == H_HIER) {
            /* The group's part, folded in node order; the leaders then reduce in place.
             * Only leaders compute: every PE gets the same bits. */
            if (dest != source)
                memcpy(dest, source, nbytes);
            for (int j = 1; j < c->n; j++)
                fn(dest, small ? (const void *)cn_in(c, j) : cn_peer(c, j, source), count);
            MPI_Request req;
            int rc = MPI_Iallreduce(MPI_IN_PLACE, dest, (int)count, dt, op, h->leaders, &req);
            status = h_leaders_done(h, routine, rc, &req, dest, nbytes);
        }
    }
    return h_finish(h, g, &ng, routine, bad, status, path, &v, dest, dest,
                    count ? nbytes : 0, !leader);
}

int shmemi_chier_collect(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                         const void *source, size_t nbytes, uint64_t room)
{
    struct shmemi_chier *h = g->hier;
    struct shmemi_cnode *c = h->c;
    /* The same on every PE of the team: the choice is the team's. */
    if (!h->contiguous || (size_t)g->n * 3 * sizeof(uint64_t) > CN_CAP)
        return 1;
    shmemi_coll_t ng = node_group(h, g->loud);
    uint64_t kind = shmemi_agree_kind(routine), size = bad ? UINT64_MAX : (uint64_t)nbytes;
    int leader = c->me == 0;
    uint64_t *sizes = malloc(sizeof(uint64_t) * 4 * (size_t)g->n);
    if (sizes == NULL)
        shmemi_fatal(routine, "out of memory"); /* the peers are on their way */
    uint64_t *all = sizes + g->n;
    shmemi_cn_sync_windows();
    /* Gather: every PE's {size, room, kind} (and data that fits) to its leader. */
    if (!leader) {
        if (!bad && nbytes && nbytes <= CN_CAP)
            memcpy(cn_out(c), source, nbytes);
        cn_slot(c, c->me, c->epoch + 1)->extra = room; /* posted with the header below */
    }
    h_gather(h, &ng, routine, 1, kind, size, 0, bad);
    uint64_t gathered = c->epoch; /* the members' data stay in these slots until the end */
    int status = H_OK;
    if (leader) {
        /* The leaders exchange their groups' triples: all of them, in team order. */
        uint64_t *part = all + 3 * (size_t)h->first[h->my_node];
        for (int j = 0; j < c->n; j++) {
            const cn_line_t *l = cn_slot(c, j, c->epoch);
            part[3 * j] = j ? l->size : size;
            part[3 * j + 1] = j ? l->extra : room;
            part[3 * j + 2] = j ? l->kind : kind;
        }
        int *counts = malloc(sizeof(int) * 2 * (size_t)h->nnodes);
        if (counts == NULL)
            shmemi_fatal(routine, "out of memory");
        int *displs = counts + h->nnodes;
        for (int k = 0; k < h->nnodes; k++) {
            counts[k] = 3 * h->count[k];
            displs[k] = 3 * h->first[k];
        }
        MPI_Request req;
        int rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs,
                                 MPI_UINT64_T, h->leaders, &req);
        if (rc == MPI_SUCCESS)
            rc = shmemi_agree_wait(&req, h->leaders, routine);
        free(counts);
        if (rc != MPI_SUCCESS)
            status = H_FAILED;
        else
            memcpy(cn_out(c), all, sizeof(uint64_t) * 3 * (size_t)g->n);
    }
    shmemi_agree_verdict_t v = {-1, -1};
    int path = H_HIER;
    const cn_line_t *l = h_release(h, &ng, routine, 1, status, H_HIER, &v);
    if (h_verdict(h, g, routine, bad, l, &path)) {
        free(sizes);
        return -1;
    }
    if (!leader)
        memcpy(all, cn_in(c, 0), sizeof(uint64_t) * 3 * (size_t)g->n);
    /* Every PE now checks the same triples, as the flat collect does. */
    size_t total, before;
    if (shmemi_collect_verdict(routine, g, bad, dest, all, sizes, &total, &before)) {
        free(sizes);
        return -1;
    }
    if (total > shmemi_coll_limit()) {
        /* int displacements do not reach: the flat pieces (the sizes are known) */
        int rc = shmemi_collect_flat(routine, g, dest, source, nbytes, sizes, total, before);
        free(sizes);
        return rc;
    }
    if (leader && total) {
        /* The group's blocks in place in dest, then the leaders' allgatherv of them. */
        size_t at = before;
        for (int j = 0; j < c->n; j++) {
            size_t sz = (size_t)sizes[h->team_pe[j]];
            if (sz)
                memcpy((char *)dest + at, j == 0 ? source : sz <= CN_CAP
                                                     ? (const void *)cn_slot(c, j, gathered)->data
                                                     : (const void *)cn_peer(c, j, source),
                       sz);
            at += sz;
        }
        int *counts = malloc(sizeof(int) * 2 * (size_t)h->nnodes);
        if (counts == NULL)
            shmemi_fatal(routine, "out of memory");
        int *displs = counts + h->nnodes;
        size_t off = 0;
        for (int k = 0; k < h->nnodes; k++) {
            size_t bytes = 0;
            for (int i = h->first[k]; i < h->first[k] + h->count[k]; i++)
                bytes += (size_t)sizes[i];
            counts[k] = (int)bytes;
            displs[k] = (int)off;
            off += bytes;
        }
        MPI_Request req;
        int rc = MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dest, counts, displs,
                                 MPI_BYTE, h->leaders, &req);
        status = h_leaders_done(h, routine, rc, &req, dest, total);
        free(counts);
    }
    free(sizes);
    return h_finish(h, g, &ng, routine, 0, status, H_HIER, &v, dest, dest, total, !leader);
}
