/* coll_hier.c: hierarchical team collectives for teams that span nodes: the set-up and
 * teardown of a team's node groups and leaders, the SHMEMQ_COLL_HIER setting, the measured
 * choice of each call's data path, and shmemq_info's description of them
 * (docs/collectives.md has the algorithm, the choice rule and the numbers). The steps
 * and the collectives themselves are coll_hier_engines.c's; the state both share is
 * coll_hier.h's.
 *
 * The team's PEs on each node form a node group with its own shared-memory segment
 * (coll_node.c's, through shmemi_cn_alloc); the group's lowest team PE is its leader,
 * and the leaders form one communicator, in team order. The data path of a broadcast,
 * reduction or fcollect is chosen by the leaders after the agreement
 * (shmemi_chier_choose), that of a barrier by every PE (shmemi_chier_barrier), each
 * measured as coll_hier.h says. */
#include "coll_hier.h"
#include "agree.h"

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
int shmemi_chier_choose(struct shmemi_chier *h, int what, size_t bytes)
{
    if (h->forced)
        return H_HIER;
    h_tune_t *t = &h->tune[what][size_class(bytes)];
    if (t->choice >= 0)
        return t->choice;
    h->trial = t;
    h->trial_path = shmemi_chier_trial_path(t);
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

void shmemi_chier_timed(const shmemi_coll_t *g, int rc, const char *routine)
{
    struct shmemi_chier *h = g->hier;
    if (h == NULL || h->trial == NULL)
        return; /* not a leader, or not a trial call */
    h_tune_t *t = h->trial;
    h->trial = NULL;
    if (rc != 0)
        return; /* refused or failed on every PE: not timed, tried again */
    if (!shmemi_chier_record(t, h->trial_path, shmemi_wtime() - h->trial_t0))
        return;
    int k = (int)((t - &h->tune[0][0]) / H_CLASSES), j = (int)((t - &h->tune[0][0]) % H_CLASSES);
    shmemi_chier_decide(g, t, h->leaders, routine, kind_name[k], (size_t)1 << j);
}

/* The verdict of a class's trials: per path, the slowest of comm's members' fastest
 * trial (an MPI_Iallreduce all of comm reach at the same call; the fastest call is the
 * path's own cost, the others add preemption and late arrivals); the faster path from
 * now on. */
void shmemi_chier_decide(const shmemi_coll_t *g, h_tune_t *t, MPI_Comm comm,
                         const char *routine, const char *what, size_t bytes)
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
