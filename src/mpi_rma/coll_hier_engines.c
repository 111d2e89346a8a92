/* coll_hier_engines.c: the hierarchical collectives' steps and engines (the agreement
 * alone, barrier, broadcast, fcollect, reductions, collect) for teams that span nodes,
 * over the node groups and leaders coll_hier.c sets up (docs/collectives.md has the
 * algorithm, the choice rule and the numbers).
 *
 * A collective is
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
 * hierarchically or, where the choice rule (coll_hier.c) says the flat MPI collective is
 * faster at this size, by the caller on the team's communicator. Waits progress the
 * library (shmemi_cn_wait, shmemi_agree_wait). */
#include "coll_hier.h"
#include "agree.h"

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
    int path = t->choice >= 0 ? t->choice : shmemi_chier_trial_path(t);
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
        if (shmemi_chier_record(t, path, shmemi_wtime() - t0))
            shmemi_chier_decide(g, t, g->comm, routine, "barrier", 0);
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
                       (path = shmemi_chier_choose(h, H_BCAST, nbytes)) == H_FLAT) {
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
                path = shmemi_chier_choose(h, H_FCOLLECT, nbytes);
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
            path = count > shmemi_coll_limit() ? H_FLAT
                                                : shmemi_chier_choose(h, H_REDUCE, nbytes);
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
