/* team.c: OpenSHMEM teams as MPI communicators, and MPI interoperability.
 *
 * A team is a communicator plus a team PE -> world PE table (world PEs are the ranks
 * the windows are built over). Splits are collective over the parent team and use
 * MPI_Comm_split on the parent's communicator; PEs outside the new team pass
 * MPI_UNDEFINED and get SHMEM_TEAM_INVALID. MPI_Comm_split blocks inside MPI, so a
 * progressing barrier over the parent comes first: every member then enters the split
 * at about the same time and no PE sits in MPI while a peer waits for it to apply
 * queue traffic. That step is also the agreement (agree.c): a PE that rejects its
 * arguments still takes part, so every PE of the parent returns the error together.
 * docs/teams.md has the rules. */
#include "agree.h"
#include "registry.h"

int shmemi_team_fill_world_map(struct shmemq_team *team)
{
    MPI_Group world_group, team_group;
    team->world_pe = malloc(sizeof(int) * (size_t)team->n_pes);
    int *ranks = malloc(sizeof(int) * (size_t)team->n_pes);
    if (!team->world_pe || !ranks) {
        free(ranks);
        free(team->world_pe);
        team->world_pe = NULL;
        return -1;
    }
    for (int i = 0; i < team->n_pes; i++)
        ranks[i] = i;
    MPI_Comm_group(shmemi.comm, &world_group);
    MPI_Comm_group(team->comm, &team_group);
    MPI_Group_translate_ranks(team_group, team->n_pes, ranks, world_group, team->world_pe);
    MPI_Group_free(&team_group);
    MPI_Group_free(&world_group);
    free(ranks);
    return 0;
}

int shmem_team_my_pe(shmem_team_t team)
{
    if (!shmemi.initialized || team == SHMEM_TEAM_INVALID)
        return -1;
    return team->my_pe;
}
SHMEMI_PROFILE(shmem_team_my_pe)

int shmem_team_n_pes(shmem_team_t team)
{
    if (!shmemi.initialized || team == SHMEM_TEAM_INVALID)
        return -1;
    return team->n_pes;
}
SHMEMI_PROFILE(shmem_team_n_pes)

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    static const char *routine = "shmem_team_get_config";
    if (!shmemi.initialized || team == SHMEM_TEAM_INVALID) {
        shmemi_debug(routine, "invalid team");
        return -1;
    }
    if (config_mask != 0 && config == NULL) {
        shmemi_debug(routine, "config is NULL");
        return -1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}
SHMEMI_PROFILE(shmem_team_get_config)

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (!shmemi.initialized || src_team == SHMEM_TEAM_INVALID ||
        dest_team == SHMEM_TEAM_INVALID)
        return -1;
    int world = shmemi_team_world_pe(src_team, src_pe);
    if (world < 0)
        return -1;
    if (dest_team->world_pe == NULL) /* WORLD: identity */
        return world < dest_team->n_pes ? world : -1;
    /* Not on any hot path: a linear scan keeps teams free of world-sized tables. */
    for (int i = 0; i < dest_team->n_pes; i++)
        if (dest_team->world_pe[i] == world)
            return i;
    return -1;
}
SHMEMI_PROFILE(shmem_team_translate_pe)

/* Teams made by splits and not destroyed, in creation order (the same on every member),
 * freed at shmem_finalize. */
static shmemi_registry_t teams = SHMEMI_REGISTRY_INIT;

static void team_free(void *obj, void *arg)
{
    struct shmemq_team *t = obj;
    (void)arg;
    shmemi_cnode_free(t);
    MPI_Comm_free(&t->comm);
    free(t->world_pe);
    free(t);
}

/* shmem_finalize: free the teams the program did not destroy (contexts made from them
 * are unusable after finalize anyway). */
void shmemi_team_fini(void)
{
    int n = shmemi_registry_count(&teams);
    if (n)
        shmemi_debug("shmem_finalize", "%d teams were not destroyed; freeing them", n);
    /* node collective segments: collective, in the same order on every PE */
    shmemi_cnode_free(&shmemi.team_world);
    shmemi_cnode_free(&shmemi.team_shared);
    shmemi_registry_each(&teams, team_free, NULL);
    shmemi_registry_clear(&teams);
}

/* Make *out from parent->comm split by (color, key); color MPI_UNDEFINED leaves
 * *out = SHMEM_TEAM_INVALID. Collective over the parent. */
static int team_split(const char *routine, struct shmemq_team *parent, int color, int key,
                      const shmem_team_config_t *config, long config_mask,
                      shmem_team_t *out)
{
    MPI_Comm comm;
    *out = SHMEM_TEAM_INVALID;
    if (MPI_Comm_split(parent->comm, color, key, &comm) != MPI_SUCCESS) {
        shmemi_debug(routine, "MPI_Comm_split failed");
        return -1;
    }
    if (comm == MPI_COMM_NULL)
        return 0;
    struct shmemq_team *t = calloc(1, sizeof *t);
    if (t == NULL) {
        MPI_Comm_free(&comm);
        shmemi_debug(routine, "out of memory");
        return -1;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    t->comm = comm;
    MPI_Comm_rank(comm, &t->my_pe);
    MPI_Comm_size(comm, &t->n_pes);
    t->config_mask = config_mask;
    t->config.num_contexts =
        (config_mask & SHMEM_TEAM_NUM_CONTEXTS) && config ? config->num_contexts : 0;
    if (shmemi_team_fill_world_map(t) != 0 || shmemi_registry_add(&teams, t) != 0) {
        MPI_Comm_free(&comm);
        free(t->world_pe);
        free(t);
        shmemi_debug(routine, "out of memory");
        return -1;
    }
    *out = t;
    return 0;
}

static int check_config(const char *routine, const shmem_team_config_t *config, long mask)
{
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && config == NULL) {
        shmemi_refused(routine, "config_mask asks for num_contexts but config is NULL");
        return -1;
    }
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && config->num_contexts < 0) {
        shmemi_refused(routine, "negative num_contexts %d", config->num_contexts);
        return -1;
    }
    return 0;
}

/* The agreement over the parent that every split runs before MPI_Comm_split (it also
 * replaces the progressing barrier that keeps members from waiting inside MPI). */
static int split_agree(const char *routine, struct shmemq_team *parent, int bad)
{
    if (parent->n_pes == 1)
        return bad ? -1 : 0;
    uint64_t kind = shmemi_agree_kind(routine);
    return shmemi_agree(routine, parent->comm, parent->my_pe, parent->n_pes, 0, bad, &kind, 1);
}

/* PEs may pass different triplets (SOS's tests pass (me, 1, 1) for a team of each PE),
 * but every PE a triplet names must pass that same triplet: otherwise MPI_Comm_split
 * would build teams nobody asked for. One allgather of the (already valid) triplets
 * over the parent, then the same O(n) check on every PE: each PE's triplet equals the
 * one its start passes, and each triplet passed by its own start has members that all
 * pass it (together: every member of every named team passes that team's triplet).
 * 0 when they agree, -1 on every PE otherwise. */
static int triplets_agree(const char *routine, struct shmemq_team *parent, int start,
                          int stride, int size)
{
    int n = parent->n_pes, mine[3] = {start, stride, size}, rc = -1;
    int *all = malloc(sizeof(int) * 3 * (size_t)n);
    MPI_Request req;
    if (all == NULL) /* 12 bytes a PE: the peers would wait in the allgather */
        shmemi_fatal(routine, "out of memory for the %d PEs' triplets", n);
    if (MPI_Iallgather(mine, 3, MPI_INT, all, 3, MPI_INT, parent->comm, &req) != MPI_SUCCESS ||
        shmemi_agree_wait(&req, parent->comm, routine) != MPI_SUCCESS) {
        shmemi_debug(routine, "MPI_Iallgather of the triplets failed");
        free(all);
        return -1;
    }
    /* Every PE judges the same data the same way: the verdict agrees everywhere. */
    int bad_q = -1, bad_p = -1;
    for (int q = 0; q < n && bad_q < 0; q++) {
        const int *t = all + 3 * q, *s = all + 3 * t[0];
        if (memcmp(t, s, sizeof(int) * 3) != 0)
            bad_q = q, bad_p = t[0];
        else if (q == t[0])
            for (int i = 0; i < t[2] && bad_q < 0; i++) {
                int p = t[0] + t[1] * i;
                if (memcmp(t, all + 3 * p, sizeof(int) * 3) != 0)
                    bad_q = q, bad_p = p;
            }
    }
    if (bad_q >= 0 && parent->my_pe == 0) { /* every PE knows; one says it */
        const int *t = all + 3 * bad_q, *u = all + 3 * bad_p;
        shmemi_refused(routine,
                       "PEs name one team with different triplets: parent PE %d asks for "
                       "(start %d, stride %d, size %d), which includes parent PE %d, which "
                       "asks for (start %d, stride %d, size %d); no team was made on any PE",
                       bad_q, t[0], t[1], t[2], bad_p, u[0], u[1], u[2]);
    }
    if (bad_q < 0)
        rc = 0;
    free(all);
    return rc;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    static const char *routine = "shmem_team_split_strided";
    if (new_team)
        *new_team = SHMEM_TEAM_INVALID;
    if (!shmemi.initialized || parent_team == SHMEM_TEAM_INVALID) {
        shmemi_refused(routine, "invalid parent team");
        return -1; /* no team to agree over */
    }
    int bad = 0;
    if (new_team == NULL) {
        shmemi_refused(routine, "new_team is NULL");
        bad = 1;
    }
    /* Valid triplet (spec): start + stride*i in [0, N) for every i in [0, size).
     * Any stride qualifies, negative too; 0 only for a single PE (no repeated PEs). */
    int n = parent_team->n_pes;
    long long last = (long long)start + (long long)stride * ((long long)size - 1);
    if (size < 1 || size > n || start < 0 || start >= n || last < 0 || last >= n ||
        (stride == 0 && size > 1)) {
        shmemi_refused(routine, "invalid triplet start %d stride %d size %d over %d PEs",
                       start, stride, size, n);
        bad = 1;
    }
    if (check_config(routine, config, config_mask))
        bad = 1;
    /* The color is the triplet's start, not a constant: programs (SOS's unit tests among
     * them) let each PE pass a triplet of its own, e.g. (me, 1, 1) for a team of itself,
     * and PEs naming different teams must not end up in one communicator. */
    int me = parent_team->my_pe, color = MPI_UNDEFINED, key = 0;
    long long d = (long long)me - start;
    if (bad) {
        /* nothing to compute */
    } else if (stride == 0) {
        if (d == 0)
            color = start;
    } else if (d % stride == 0 && d / stride >= 0 && d / stride < size) {
        color = start;
        key = (int)(d / stride);
    }
    if (split_agree(routine, parent_team, bad))
        return -1;
    if (n > 1 && triplets_agree(routine, parent_team, start, stride, size) != 0)
        return -1;
    return team_split(routine, parent_team, color, key, config, config_mask, new_team);
}
SHMEMI_PROFILE(shmem_team_split_strided)

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    static const char *routine = "shmem_team_split_2d";
    if (xaxis_team)
        *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team)
        *yaxis_team = SHMEM_TEAM_INVALID;
    if (!shmemi.initialized || parent_team == SHMEM_TEAM_INVALID) {
        shmemi_refused(routine, "invalid parent team");
        return -1; /* no team to agree over */
    }
    int bad = 0;
    if (xaxis_team == NULL || yaxis_team == NULL) {
        shmemi_refused(routine, "team output is NULL");
        bad = 1;
    }
    if (xrange < 1) {
        shmemi_refused(routine, "xrange %d must be positive", xrange);
        bad = 1;
    }
    if (check_config(routine, xaxis_config, xaxis_mask) ||
        check_config(routine, yaxis_config, yaxis_mask))
        bad = 1;
    if (split_agree(routine, parent_team, bad))
        return -1;
    int n = parent_team->n_pes, me = parent_team->my_pe;
    if (xrange > n) /* spec: one x team of all the parent's PEs */
        xrange = n;
    /* x teams: rows of xrange consecutive PEs; y teams: the columns. */
    if (team_split(routine, parent_team, me / xrange, me % xrange, xaxis_config, xaxis_mask,
                   xaxis_team) != 0)
        return -1;
    if (team_split(routine, parent_team, me % xrange, me / xrange, yaxis_config, yaxis_mask,
                   yaxis_team) != 0) {
        shmem_team_destroy(*xaxis_team);
        *xaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return 0;
}
SHMEMI_PROFILE(shmem_team_split_2d)

int shmem_team_sync(shmem_team_t team)
{
    static const char *routine = "shmem_team_sync";
    if (!shmemi.initialized || team == SHMEM_TEAM_INVALID) {
        shmemi_debug(routine, "invalid team");
        return -1;
    }
    /* A barrier has nothing to agree on; its wait runs the SHMEM_DEBUG watchdog. It
     * makes the stores that peers made visible to this PE's loads (coll_node.c). */
    return shmemi_team_barrier(team, routine, 1) == MPI_SUCCESS ? 0 : -1;
}
SHMEMI_PROFILE(shmem_team_sync)

void shmem_team_destroy(shmem_team_t team)
{
    static const char *routine = "shmem_team_destroy";
    if (shmemi_check_init(routine))
        return;
    if (team == SHMEM_TEAM_INVALID)
        return; /* non-members of a split hold INVALID and may pass it back */
    if (team->predefined) {
        /* The other PEs name some other team: there is none to agree over. */
        shmemi_bad_arg(routine, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed");
        return;
    }
    int bad = 0;
    if (team->n_ctx > 0) {
        /* Contexts hold a pointer to the team: freeing it would leave them dangling. */
        shmemi_bad_arg(routine, "the team still has %d contexts; destroy them first",
                       team->n_ctx);
        bad = 1;
    }
    /* Every member frees the team, or none does (a team freed on some PEs only would
     * leave the others' next collective on it waiting forever). */
    uint64_t kind = shmemi_agree_kind(routine);
    if (team->n_pes > 1 ? shmemi_agree(routine, team->comm, team->my_pe, team->n_pes, 1, bad,
                                       &kind, 1)
                        : bad)
        return;
    shmemi_registry_remove(&teams, team);
    team_free(team, NULL);
}
SHMEMI_PROFILE(shmem_team_destroy)

int shmemx_team_get_mpi_comm(shmem_team_t team, MPI_Comm *comm)
{
    static const char *routine = "shmemx_team_get_mpi_comm";
    if (comm)
        *comm = MPI_COMM_NULL;
    if (!shmemi.initialized || team == SHMEM_TEAM_INVALID) {
        shmemi_debug(routine, "invalid team");
        return -1;
    }
    /* MPI_Comm_dup is collective: a PE with a NULL comm still agrees, so none dups. */
    uint64_t kind = shmemi_agree_kind(routine);
    if (comm == NULL)
        shmemi_debug(routine, "comm is NULL");
    if (team->n_pes > 1 ? shmemi_agree(routine, team->comm, team->my_pe, team->n_pes, 0,
                                       comm == NULL, &kind, 1)
                        : comm == NULL)
        return -1;
    /* A duplicate: the user's traffic never matches ours and freeing it is theirs. */
    if (MPI_Comm_dup(team->comm, comm) != MPI_SUCCESS) {
        *comm = MPI_COMM_NULL;
        return -1;
    }
    /* Ours return errors; the user gets MPI's default. */
    MPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
    return 0;
}
SHMEMI_PROFILE(shmemx_team_get_mpi_comm)
