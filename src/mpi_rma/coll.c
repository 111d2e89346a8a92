/* coll.c: team collectives (OpenSHMEM 1.5) and the 1.6 sum scans over the team's
 * communicator.
 *
 * Each collective is one nonblocking MPI collective (MPI_Ibcast, MPI_Iallgather(v),
 * MPI_Ialltoall, MPI_Iallreduce, MPI_Iscan, MPI_Iexscan) completed with
 * shmemi_wait_request, so a PE inside a collective keeps applying queue and AMO
 * traffic. Data movement is in bytes (MPI_BYTE or byte-built derived types); reductions
 * use the MPI datatype of the C type. Counts above the per-call limit (INT_MAX, or
 * SHMEMQ_COLL_MAX_COUNT for testing) are split into several calls, with resized
 * derived types keeping each PE's block in place. MPI_Win_sync before and after makes
 * the windows' memory and this PE's loads and stores agree. Before any data moves, the
 * PEs agree on their argument checks (shmemi_coll_agree, agree.c): when one PE rejects
 * its arguments every PE returns the error. docs/teams.md has more. */
#include "coll_impl.h"
#include "agree.h"
#include <limits.h>
#include <stdarg.h>

/* ---- helpers ---- */

size_t shmemi_coll_limit(void)
{
    static size_t limit;
    if (SHMEMI_UNLIKELY(limit == 0)) {
        size_t v = (size_t)INT_MAX;
        const char *s = getenv("SHMEMQ_COLL_MAX_COUNT"); /* testing knob: force splitting */
        size_t e;
        if (s && shmemi_parse_size(s, &e) == 0 && e > 0 && e < v)
            v = e;
        limit = v;
    }
    return limit;
}

static void coll_report(const shmemi_coll_t *g, const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void coll_report(const shmemi_coll_t *g, const char *routine, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g->loud)
        shmemi_bad_arg(routine, "%s", msg);
    else
        shmemi_refused(routine, "%s", msg);
}

/* A symmetric [p, p+len): len 0 needs nothing. */
static int check_sym(const shmemi_coll_t *g, const char *routine, const char *what,
                     const void *p, size_t len)
{
    if (len == 0)
        return 0;
    if (p == NULL) {
        coll_report(g, routine, "%s is NULL", what);
        return -1;
    }
    if (!shmemi_is_symmetric(p, len)) {
        coll_report(g, routine, "%s [%p, +%zu bytes) is not symmetric", what, p, len);
        return -1;
    }
    return 0;
}

static int overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen && blen && x < y + blen && y < x + alen;
}

/* dest and source both symmetric and not overlapping at all. 0, or -1 reported. */
static int disjoint_buffers(const char *routine, const shmemi_coll_t *g, void *dest,
                            size_t dspan, const void *source, size_t sspan)
{
    if (check_sym(g, routine, "dest", dest, dspan) ||
        check_sym(g, routine, "source", source, sspan))
        return -1;
    if (overlap(dest, dspan, source, sspan)) {
        coll_report(g, routine, "dest and source overlap");
        return -1;
    }
    return 0;
}

/* a * b without wrapping; -1 (SIZE_MAX) flags overflow. */
static size_t mul(size_t a, size_t b)
{
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? SIZE_MAX : r;
}

/* Bytes from the first to past the last of count elements stride elements apart;
 * SIZE_MAX on overflow. */
static size_t span(size_t count, size_t stride, size_t esize)
{
    if (count == 0)
        return 0;
    size_t last = mul(count - 1, stride);
    if (last == SIZE_MAX || last + 1 == SIZE_MAX)
        return SIZE_MAX;
    return mul(last + 1, esize);
}

static void sync_windows(void)
{
    MPI_Win_sync(shmemi.heap_win);
    MPI_Win_sync(shmemi.data_win);
}

static int wait_req(const char *routine, int rc, MPI_Request *req)
{
    if (rc == MPI_SUCCESS)
        rc = shmemi_wait_request(req);
    if (rc != MPI_SUCCESS) {
        shmemi_debug(routine, "MPI collective failed (code %d)", rc);
        return -1;
    }
    return 0;
}

/* len elements of esize bytes, consecutive elements stride elements apart, with the
 * extent set to extent bytes so that block j of a collective starts j*extent in. */
static int block_type(size_t len, size_t esize, ptrdiff_t stride, size_t extent,
                      MPI_Datatype *out)
{
    MPI_Datatype t;
    int rc;
    if (stride == 1 || len == 1) /* one element: its stride plays no part (and may overflow) */
        rc = MPI_Type_contiguous((int)(len * esize), MPI_BYTE, &t);
    else
        rc = MPI_Type_create_hvector((int)len, (int)esize, (MPI_Aint)stride * (MPI_Aint)esize,
                                     MPI_BYTE, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_create_resized(t, 0, (MPI_Aint)extent, out);
    MPI_Type_free(&t);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(out);
    return rc;
}

int shmemi_coll_agree(const char *routine, const shmemi_coll_t *g, int bad, uint64_t size,
                      uint64_t root)
{
    if (g->node)
        return shmemi_cnode_agree(routine, g, bad, size, root);
    if (g->hier) /* the engines' agreement on such a team is hierarchical too */
        return shmemi_chier_agree(routine, g, bad, size, root);
    if (g->n == 1) /* nobody to wait for */
        return bad ? -1 : 0;
    uint64_t v[3] = {shmemi_agree_kind(routine), size, root};
    return shmemi_agree(routine, g->comm, g->me, g->n, g->loud, bad, v, 3);
}

int shmemi_coll_sync(const char *routine, const shmemi_coll_t *g)
{
    if (g->node)
        return shmemi_cnode_barrier(routine, g, 1);
    if (g->hier)
        return shmemi_chier_barrier(routine, g, 1);
    int rc = shmemi_agree_barrier(g->comm, routine);
    sync_windows();
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* ---- engines ---- */

static int coll_bcast(const char *routine, const shmemi_coll_t *g, void *dest,
                      const void *source, size_t nbytes, int root, int write_root)
{
    int bad = 0, am_root = g->me == root;
    if (root < 0 || root >= g->n) {
        coll_report(g, routine, "PE_root %d out of range [0, %d)", root, g->n);
        bad = 1;
    } else if (((!am_root || write_root) && check_sym(g, routine, "dest", dest, nbytes)) ||
               (am_root && check_sym(g, routine, "source", source, nbytes))) {
        bad = 1;
    }
    if (g->node)
        return shmemi_cnode_bcast(routine, g, bad, dest, source, nbytes, root, write_root);
    int agreed = 0; /* the hierarchical agreement ran and left the data to MPI */
    if (g->hier) {
        int rc = shmemi_chier_bcast(routine, g, bad, dest, source, nbytes, root, write_root);
        if (rc <= 0)
            return rc;
        agreed = 1;
    }
    /* Small: the data rides on the agreement itself (one MPI call, not two): the root
     * contributes its bytes, 4 per word (below 2^32, so MAX picks them whether MPI
     * orders MPI_UINT64_T as unsigned or, as MPICH 4.0 was seen to, signed), the
     * others zeros. */
    if (!agreed && g->n > 1 && nbytes <= SHMEMI_AGREE_MAX_EXTRA * sizeof(uint32_t)) {
        uint64_t in[SHMEMI_AGREE_MAX_EXTRA] = {0}, out[SHMEMI_AGREE_MAX_EXTRA];
        uint32_t part[SHMEMI_AGREE_MAX_EXTRA] = {0};
        int words = (int)((nbytes + 3) / 4);
        uint64_t v[3] = {shmemi_agree_kind(routine), nbytes, (uint64_t)(int64_t)root};
        sync_windows();
        if (am_root && !bad && nbytes) {
            memcpy(part, source, nbytes);
            for (int i = 0; i < words; i++)
                in[i] = part[i];
        }
        if (shmemi_agree_extra(routine, g->comm, g->me, g->n, g->loud, bad, v, 3, in, out,
                               words))
            return -1;
        if ((!am_root || write_root) && nbytes) {
            for (int i = 0; i < words; i++)
                part[i] = (uint32_t)out[i];
            memmove(dest, part, nbytes);
        }
        sync_windows();
        return 0;
    }
    if (!agreed && shmemi_coll_agree(routine, g, bad, nbytes, (uint64_t)(int64_t)root))
        return -1;
    sync_windows();
    size_t limit = shmemi_coll_limit();
    for (size_t off = 0; off < nbytes; off += limit) {
        size_t len = nbytes - off < limit ? nbytes - off : limit;
        char *buf = am_root ? (char *)source + off : (char *)dest + off;
        MPI_Request req;
        if (wait_req(routine, MPI_Ibcast(buf, (int)len, MPI_BYTE, root, g->comm, &req), &req))
            return -1;
    }
    if (am_root && write_root && dest != source && nbytes)
        memmove(dest, source, nbytes);
    sync_windows();
    return 0;
}

int shmemi_coll_bcast(const char *routine, const shmemi_coll_t *g, void *dest,
                      const void *source, size_t nbytes, int root, int write_root)
{
    int rc = coll_bcast(routine, g, dest, source, nbytes, root, write_root);
    shmemi_chier_timed(g, rc, routine); /* across nodes, a size's first calls are timed */
    return rc;
}

static int coll_fcollect(const char *routine, const shmemi_coll_t *g, void *dest,
                         const void *source, size_t nbytes)
{
    size_t total = mul(nbytes, (size_t)g->n);
    int bad = 0;
    if (total == SIZE_MAX) {
        coll_report(g, routine, "size overflows");
        bad = 1;
    } else {
        bad = disjoint_buffers(routine, g, dest, total, source, nbytes) != 0;
    }
    if (g->node)
        return shmemi_cnode_fcollect(routine, g, bad, dest, source, nbytes);
    if (g->hier) {
        int rc = shmemi_chier_fcollect(routine, g, bad, dest, source, nbytes);
        if (rc <= 0)
            return rc;
    } else if (shmemi_coll_agree(routine, g, bad, nbytes, 0)) {
        return -1;
    }
    if (nbytes == 0)
        return 0;
    sync_windows();
    size_t limit = shmemi_coll_limit();
    MPI_Request req;
    if (nbytes <= limit) {
        if (wait_req(routine,
                     MPI_Iallgather(source, (int)nbytes, MPI_BYTE, dest, (int)nbytes, MPI_BYTE,
                                    g->comm, &req),
                     &req))
            return -1;
    } else {
        /* Piece by piece; the resized type keeps PE i's piece at i*nbytes + off. */
        for (size_t off = 0; off < nbytes; off += limit) {
            size_t len = nbytes - off < limit ? nbytes - off : limit;
            MPI_Datatype rt;
            if (block_type(len, 1, 1, nbytes, &rt) != MPI_SUCCESS)
                return -1;
            int rc = wait_req(routine,
                              MPI_Iallgather((const char *)source + off, (int)len, MPI_BYTE,
                                             (char *)dest + off, 1, rt, g->comm, &req),
                              &req);
            MPI_Type_free(&rt);
            if (rc)
                return -1;
        }
    }
    sync_windows();
    return 0;
}

int shmemi_coll_fcollect(const char *routine, const shmemi_coll_t *g, void *dest,
                         const void *source, size_t nbytes)
{
    int rc = coll_fcollect(routine, g, dest, source, nbytes);
    shmemi_chier_timed(g, rc, routine); /* across nodes, a size's first calls are timed */
    return rc;
}

/* How many bytes in all collect may write at dest on this PE: what is left of dest's
 * symmetric region, less what would reach source (dest and source must not overlap).
 * 0 for a NULL or non-symmetric dest (fine only when nothing is collected). */
static uint64_t collect_room(const void *dest, const void *source, size_t nbytes)
{
    uintptr_t off;
    int r = dest ? shmemi_region(dest, 1, &off) : -1;
    if (r < 0)
        return 0;
    uint64_t room = (r == 0 ? shmemi.heap_size : shmemi.data_size) - off;
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
    if (nbytes && s >= d && s - d < room)
        room = s - d; /* past that, dest runs into source */
    else if (nbytes && s < d && s + nbytes > d)
        room = 0; /* source covers dest's first byte */
    return room;
}

int shmemi_collect_verdict(const char *routine, const shmemi_coll_t *g, int bad, void *dest,
                           const uint64_t *all, uint64_t *sizes, size_t *total, size_t *before)
{
    uint64_t kind = shmemi_agree_kind(routine);
    *total = *before = 0;
    for (int i = 0; i < g->n; i++) {
        sizes[i] = all[3 * i];
        if (i == g->me)
            *before = *total;
        if (all[3 * i + 2] != kind) {
            coll_report(g, routine, "the PEs called different collectives (or different types)");
            return -1;
        }
        if (sizes[i] == UINT64_MAX) {
            if (!bad)
                coll_report(g, routine, "team PE %d passed a bad source", i);
            return -1;
        }
        if (__builtin_add_overflow(*total, (size_t)sizes[i], total)) {
            coll_report(g, routine, "total size overflows");
            return -1;
        }
    }
    for (int i = 0; i < g->n; i++) {
        if (*total > all[3 * i + 1]) {
            if (i == g->me)
                coll_report(g, routine,
                            "dest %p cannot take %zu bytes (NULL, not symmetric, too small, "
                            "or overlapping source)", dest, *total);
            else
                coll_report(g, routine, "team PE %d passed a dest that cannot take %zu bytes",
                            i, *total);
            return -1;
        }
    }
    return 0;
}

int shmemi_collect_flat(const char *routine, const shmemi_coll_t *g, void *dest,
                        const void *source, size_t nbytes, const uint64_t *sizes, size_t total,
                        size_t before)
{
    int rc = 0;
    MPI_Request req;
    sync_windows();
    if (total <= shmemi_coll_limit()) {
        int *counts = malloc(sizeof(int) * 2 * (size_t)g->n);
        if (counts == NULL)
            shmemi_fatal(routine, "out of memory"); /* the peers are in the allgatherv */
        int *displs = counts + g->n, d = 0;
        for (int i = 0; i < g->n; i++) {
            counts[i] = (int)sizes[i];
            displs[i] = d;
            d += counts[i];
        }
        rc = wait_req(routine,
                      MPI_Iallgatherv(source, (int)nbytes, MPI_BYTE, dest, counts, displs,
                                      MPI_BYTE, g->comm, &req),
                      &req);
        free(counts);
    } else {
        /* Too big for int displacements: each PE broadcasts its block in pieces. */
        size_t at = 0, limit = shmemi_coll_limit();
        for (int i = 0; i < g->n && rc == 0; i++) {
            for (size_t off = 0; off < sizes[i] && rc == 0; off += limit) {
                size_t len = sizes[i] - off < limit ? sizes[i] - off : limit;
                char *buf = i == g->me ? (char *)source + off : (char *)dest + at + off;
                rc = wait_req(routine,
                              MPI_Ibcast(buf, (int)len, MPI_BYTE, i, g->comm, &req), &req);
            }
            at += sizes[i];
        }
        if (rc == 0 && nbytes)
            memcpy((char *)dest + before, source, nbytes);
    }
    sync_windows();
    return rc;
}

int shmemi_coll_collect(const char *routine, const shmemi_coll_t *g, void *dest,
                        const void *source, size_t nbytes)
{
    /* Everyone learns everyone's size, how much its dest can take and which routine it
     * called, in the one exchange collect needs anyway: that is the agreement. A PE
     * with a bad source sends UINT64_MAX instead of its size. */
    int bad = check_sym(g, routine, "source", source, nbytes);
    uint64_t room = collect_room(dest, source, nbytes);
    if (g->node)
        return shmemi_cnode_collect(routine, g, bad, dest, source, nbytes, room);
    if (g->hier) {
        int rc = shmemi_chier_collect(routine, g, bad, dest, source, nbytes, room);
        if (rc <= 0)
            return rc;
    }
    uint64_t *sizes = malloc(sizeof(uint64_t) * 4 * (size_t)g->n);
    if (sizes == NULL)
        shmemi_fatal(routine, "out of memory"); /* the peers are already on their way */
    uint64_t *all = sizes + g->n;
    uint64_t mine[3] = {bad ? UINT64_MAX : (uint64_t)nbytes, room, shmemi_agree_kind(routine)};
    MPI_Request req;
    int rc = MPI_Iallgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, g->comm, &req);
    if (rc == MPI_SUCCESS)
        rc = shmemi_agree_wait(&req, g->comm, routine);
    if (rc != MPI_SUCCESS) {
        shmemi_debug(routine, "MPI collective failed (code %d)", rc);
        free(sizes);
        return -1;
    }
    size_t total, before;
    rc = shmemi_collect_verdict(routine, g, bad, dest, all, sizes, &total, &before);
    if (rc == 0)
        rc = shmemi_collect_flat(routine, g, dest, source, nbytes, sizes, total, before);
    free(sizes);
    return rc;
}

int shmemi_coll_alltoalls(const char *routine, const shmemi_coll_t *g, void *dest,
                          const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                          size_t esize)
{
    int bad = 0;
    /* Bytes from the first to past the last element touched, n blocks. */
    size_t nblk = mul(nelems, (size_t)g->n), dspan = 0, sspan = 0;
    if (dst < 1 || sst < 1) {
        coll_report(g, routine, "strides dst %td and sst %td must be positive", dst, sst);
        bad = 1;
    } else if (nblk == SIZE_MAX ||
               (dspan = span(nblk, (size_t)dst, esize)) == SIZE_MAX ||
               (sspan = span(nblk, (size_t)sst, esize)) == SIZE_MAX) {
        coll_report(g, routine, "size overflows");
        bad = 1;
    } else {
        bad = disjoint_buffers(routine, g, dest, dspan, source, sspan) != 0;
    }
    if (g->node)
        return shmemi_cnode_alltoalls(routine, g, bad, dest, source, dst, sst, nelems, esize);
    if (shmemi_coll_agree(routine, g, bad, nelems, 0))
        return -1;
    if (nelems == 0)
        return 0;
    sync_windows();
    size_t limit = shmemi_coll_limit();
    MPI_Request req;
    if (dst == 1 && sst == 1 && nelems * esize <= limit) {
        int c = (int)(nelems * esize);
        if (wait_req(routine,
                     MPI_Ialltoall(source, c, MPI_BYTE, dest, c, MPI_BYTE, g->comm, &req),
                     &req))
            return -1;
    } else {
        /* Elements [k, k+len) of every block per call; the types' extents are the block
         * pitches, so block j of piece k sits where the whole block j would. */
        size_t per = limit / esize ? limit / esize : 1;
        size_t sext = nelems * (size_t)sst * esize, dext = nelems * (size_t)dst * esize;
        if (g->n == 1) { /* one block: the pitch plays no part (and may overflow) */
            sext = sspan;
            dext = dspan;
        }
        for (size_t k = 0; k < nelems; k += per) {
            size_t len = nelems - k < per ? nelems - k : per;
            MPI_Datatype st, rt;
            if (block_type(len, esize, sst, sext, &st) != MPI_SUCCESS)
                return -1;
            if (block_type(len, esize, dst, dext, &rt) != MPI_SUCCESS) {
                MPI_Type_free(&st);
                return -1;
            }
            int rc = wait_req(routine,
                              MPI_Ialltoall((const char *)source + k * (size_t)sst * esize, 1,
                                            st, (char *)dest + k * (size_t)dst * esize, 1, rt,
                                            g->comm, &req),
                              &req);
            MPI_Type_free(&st);
            MPI_Type_free(&rt);
            if (rc)
                return -1;
        }
    }
    sync_windows();
    return 0;
}

/* Checks shared by reductions and scans: both buffers symmetric, and either the same
 * buffer (in place) or not overlapping. Returns 1 in place, 0 apart, -1 on bad input. */
static int reduction_buffers(const char *routine, const shmemi_coll_t *g, void *dest,
                             const void *source, size_t count, size_t esize)
{
    size_t nbytes = mul(count, esize);
    if (check_sym(g, routine, "dest", dest, nbytes) ||
        check_sym(g, routine, "source", source, nbytes))
        return -1;
    if (dest != source && overlap(dest, nbytes, source, nbytes)) {
        coll_report(g, routine, "dest and source overlap without being equal");
        return -1;
    }
    return dest == source;
}

enum { P_ALLREDUCE, P_SCAN, P_EXSCAN };

/* The MPI step of a reduction or scan (after the agreement): the windows synced, then
 * the MPI collective over pieces of at most shmemi_coll_limit() elements. */
static int mpi_pieces(const char *routine, const shmemi_coll_t *g, void *dest,
                      const void *source, size_t count, size_t esize, MPI_Datatype dt,
                      MPI_Op op, int in_place, int kind)
{
    sync_windows();
    size_t limit = shmemi_coll_limit();
    for (size_t off = 0; off < count; off += limit) {
        size_t len = count - off < limit ? count - off : limit;
        const void *s = in_place ? MPI_IN_PLACE : (const char *)source + off * esize;
        char *d = (char *)dest + off * esize;
        MPI_Request req;
        int rc = kind == P_ALLREDUCE ? MPI_Iallreduce(s, d, (int)len, dt, op, g->comm, &req)
                 : kind == P_SCAN    ? MPI_Iscan(s, d, (int)len, dt, op, g->comm, &req)
                                     : MPI_Iexscan(s, d, (int)len, dt, op, g->comm, &req);
        if (wait_req(routine, rc, &req))
            return -1;
    }
    return 0;
}

static int coll_reduce(const char *routine, const shmemi_coll_t *g, void *dest,
                       const void *source, size_t count, size_t esize, MPI_Datatype dt,
                       MPI_Op op, shmemi_rop_fn fn)
{
    int in_place = reduction_buffers(routine, g, dest, source, count, esize);
    if (g->node)
        return shmemi_cnode_reduce(routine, g, in_place < 0, dest, source, count, esize, fn);
    if (g->hier) {
        int rc = shmemi_chier_reduce(routine, g, in_place < 0, dest, source, count, esize, dt,
                                     op, fn);
        if (rc <= 0)
            return rc;
    } else if (shmemi_coll_agree(routine, g, in_place < 0, count, 0)) {
        return -1;
    }
    if (mpi_pieces(routine, g, dest, source, count, esize, dt, op, in_place, P_ALLREDUCE))
        return -1;
    sync_windows();
    return 0;
}

int shmemi_coll_reduce(const char *routine, const shmemi_coll_t *g, void *dest,
                       const void *source, size_t count, size_t esize, MPI_Datatype dt,
                       MPI_Op op, shmemi_rop_fn fn)
{
    int rc = coll_reduce(routine, g, dest, source, count, esize, dt, op, fn);
    shmemi_chier_timed(g, rc, routine); /* across nodes, a size's first calls are timed */
    return rc;
}

/* Prefix sums; exclusive leaves the sum's identity (zero bits) on PE 0. */
static int coll_scan(const char *routine, const shmemi_coll_t *g, void *dest,
                     const void *source, size_t count, size_t esize, MPI_Datatype dt,
                     shmemi_rop_fn fn, int exclusive)
{
    int in_place = reduction_buffers(routine, g, dest, source, count, esize);
    if (g->node) {
        /* small ones in shared memory; larger ones agreed there, moved by MPI below */
        int rc = shmemi_cnode_scan(routine, g, in_place < 0, dest, source, count, esize, fn,
                                   exclusive);
        if (rc <= 0)
            return rc;
    } else if (shmemi_coll_agree(routine, g, in_place < 0, count, 0)) {
        return -1;
    }
    if (mpi_pieces(routine, g, dest, source, count, esize, dt, MPI_SUM, in_place,
                   exclusive ? P_EXSCAN : P_SCAN))
        return -1;
    if (exclusive && g->me == 0 && count)
        memset(dest, 0, count * esize); /* count * esize was checked above */
    sync_windows();
    return 0;
}

/* ---- team entry ---- */

static int team_group(const char *routine, shmem_team_t team, shmemi_coll_t *g)
{
    if (SHMEMI_UNLIKELY(!shmemi.initialized || team == SHMEM_TEAM_INVALID)) {
        shmemi_debug(routine, shmemi.initialized ? "invalid team" : "not initialized");
        return -1;
    }
    g->comm = team->comm;
    g->me = team->my_pe;
    g->n = team->n_pes;
    g->loud = 0;
    g->node = shmemi_cnode_get(team, routine, 1);
    g->hier = team->chier;
    return 0;
}

#define SHMEMI_TEAM_GROUP(routine) \
    shmemi_coll_t g;               \
    if (team_group(routine, team, &g)) return -1;

/* ---- bytewise ---- */

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    SHMEMI_TEAM_GROUP("shmem_broadcastmem")
    return shmemi_coll_bcast("shmem_broadcastmem", &g, dest, source, nelems, PE_root, 1);
}
SHMEMI_PROFILE(shmem_broadcastmem)

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    SHMEMI_TEAM_GROUP("shmem_collectmem")
    return shmemi_coll_collect("shmem_collectmem", &g, dest, source, nelems);
}
SHMEMI_PROFILE(shmem_collectmem)

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    SHMEMI_TEAM_GROUP("shmem_fcollectmem")
    return shmemi_coll_fcollect("shmem_fcollectmem", &g, dest, source, nelems);
}
SHMEMI_PROFILE(shmem_fcollectmem)

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    SHMEMI_TEAM_GROUP("shmem_alltoallmem")
    return shmemi_coll_alltoalls("shmem_alltoallmem", &g, dest, source, 1, 1, nelems, 1);
}
SHMEMI_PROFILE(shmem_alltoallmem)

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    SHMEMI_TEAM_GROUP("shmem_alltoallsmem")
    return shmemi_coll_alltoalls("shmem_alltoallsmem", &g, dest, source, dst, sst, nelems, 1);
}
SHMEMI_PROFILE(shmem_alltoallsmem)

/* ---- typed data movement ---- */

/* nelems * esize, or SIZE_MAX (which no buffer check accepts) when that overflows: the
 * engine then rejects it and still takes part in the agreement. */
static inline size_t coll_bytes(size_t nelems, size_t esize)
{
    return mul(nelems, esize);
}

#define SHMEMI_DEF_COLL_MOVE(T, N)                                                            \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,     \
                              int PE_root)                                                    \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_broadcast")                                           \
        return shmemi_coll_bcast("shmem_" #N "_broadcast", &g, dest, source,                  \
                                 coll_bytes(nelems, sizeof(T)), PE_root, 1);                  \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_broadcast)                                                     \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)      \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_collect")                                             \
        return shmemi_coll_collect("shmem_" #N "_collect", &g, dest, source,                  \
                                   coll_bytes(nelems, sizeof(T)));                            \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_collect)                                                       \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_fcollect")                                            \
        return shmemi_coll_fcollect("shmem_" #N "_fcollect", &g, dest, source,                \
                                    coll_bytes(nelems, sizeof(T)));                           \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_fcollect)                                                      \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_alltoall")                                            \
        return shmemi_coll_alltoalls("shmem_" #N "_alltoall", &g, dest, source, 1, 1, nelems, \
                                     sizeof(T));                                              \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_alltoall)                                                      \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems)                                   \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_alltoalls")                                           \
        return shmemi_coll_alltoalls("shmem_" #N "_alltoalls", &g, dest, source, dst, sst,    \
                                     nelems, sizeof(T));                                      \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_alltoalls)
SHMEMQ_RMA_TYPES(SHMEMI_DEF_COLL_MOVE)

/* ---- reductions and scans ---- */

/* MPI datatype of each TYPENAME; the typedef'd ones by size and signedness. */
#define SHMEMI_MPI_DT_char (CHAR_MIN < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR)
#define SHMEMI_MPI_DT_schar MPI_SIGNED_CHAR
#define SHMEMI_MPI_DT_short MPI_SHORT
#define SHMEMI_MPI_DT_int MPI_INT
#define SHMEMI_MPI_DT_long MPI_LONG
#define SHMEMI_MPI_DT_longlong MPI_LONG_LONG
#define SHMEMI_MPI_DT_ptrdiff (sizeof(ptrdiff_t) == 8 ? MPI_INT64_T : MPI_INT32_T)
#define SHMEMI_MPI_DT_uchar MPI_UNSIGNED_CHAR
#define SHMEMI_MPI_DT_ushort MPI_UNSIGNED_SHORT
#define SHMEMI_MPI_DT_uint MPI_UNSIGNED
#define SHMEMI_MPI_DT_ulong MPI_UNSIGNED_LONG
#define SHMEMI_MPI_DT_ulonglong MPI_UNSIGNED_LONG_LONG
#define SHMEMI_MPI_DT_int8 MPI_INT8_T
#define SHMEMI_MPI_DT_int16 MPI_INT16_T
#define SHMEMI_MPI_DT_int32 MPI_INT32_T
#define SHMEMI_MPI_DT_int64 MPI_INT64_T
#define SHMEMI_MPI_DT_uint8 MPI_UINT8_T
#define SHMEMI_MPI_DT_uint16 MPI_UINT16_T
#define SHMEMI_MPI_DT_uint32 MPI_UINT32_T
#define SHMEMI_MPI_DT_uint64 MPI_UINT64_T
#define SHMEMI_MPI_DT_size (sizeof(size_t) == 8 ? MPI_UINT64_T : MPI_UINT32_T)
#define SHMEMI_MPI_DT_float MPI_FLOAT
#define SHMEMI_MPI_DT_double MPI_DOUBLE
#define SHMEMI_MPI_DT_longdouble MPI_LONG_DOUBLE
#define SHMEMI_MPI_DT_complexd MPI_C_DOUBLE_COMPLEX
#define SHMEMI_MPI_DT_complexf MPI_C_FLOAT_COMPLEX

#define SHMEMI_MPI_OP_and MPI_BAND
#define SHMEMI_MPI_OP_or MPI_BOR
#define SHMEMI_MPI_OP_xor MPI_BXOR
#define SHMEMI_MPI_OP_max MPI_MAX
#define SHMEMI_MPI_OP_min MPI_MIN
#define SHMEMI_MPI_OP_sum MPI_SUM
#define SHMEMI_MPI_OP_prod MPI_PROD

#define SHMEMI_DEF_REDUCE(T, N, OP)                                                          \
    SHMEMI_DEF_ROP(T, N, OP)                                                                 \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,               \
                                  size_t nreduce)                                            \
    {                                                                                        \
        SHMEMI_TEAM_GROUP("shmem_" #N "_" #OP "_reduce")                                     \
        return shmemi_coll_reduce("shmem_" #N "_" #OP "_reduce", &g, dest, source, nreduce,  \
                                  sizeof(T), SHMEMI_MPI_DT_##N, SHMEMI_MPI_OP_##OP,          \
                                  rop_##N##_##OP);                                           \
    }                                                                                        \
    SHMEMI_PROFILE(shmem_##N##_##OP##_reduce)
#define SHMEMI_DEF_REDUCE_BIT(T, N) \
    SHMEMI_DEF_REDUCE(T, N, and) SHMEMI_DEF_REDUCE(T, N, or) SHMEMI_DEF_REDUCE(T, N, xor)
#define SHMEMI_DEF_REDUCE_MINMAX(T, N) SHMEMI_DEF_REDUCE(T, N, max) SHMEMI_DEF_REDUCE(T, N, min)
#define SHMEMI_DEF_REDUCE_ARITH(T, N) SHMEMI_DEF_REDUCE(T, N, sum) SHMEMI_DEF_REDUCE(T, N, prod)
SHMEMQ_REDUCE_BITWISE_TYPES(SHMEMI_DEF_REDUCE_BIT)
SHMEMQ_REDUCE_MINMAX_TYPES(SHMEMI_DEF_REDUCE_MINMAX)
SHMEMQ_REDUCE_ARITH_TYPES(SHMEMI_DEF_REDUCE_ARITH)

#define SHMEMI_DEF_SCAN(T, N)                                                                 \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_sum_inscan")                                          \
        return coll_scan("shmem_" #N "_sum_inscan", &g, dest, source, nelems, sizeof(T),      \
                         SHMEMI_MPI_DT_##N, rop_##N##_sum, 0);                                \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_sum_inscan)                                                    \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    {                                                                                         \
        SHMEMI_TEAM_GROUP("shmem_" #N "_sum_exscan")                                          \
        return coll_scan("shmem_" #N "_sum_exscan", &g, dest, source, nelems, sizeof(T),      \
                         SHMEMI_MPI_DT_##N, rop_##N##_sum, 1);                                \
    }                                                                                         \
    SHMEMI_PROFILE(shmem_##N##_sum_exscan)
SHMEMQ_REDUCE_ARITH_TYPES(SHMEMI_DEF_SCAN)
