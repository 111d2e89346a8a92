/* xport_mpi_burst.c: the MPI transport's bursts (xport.h, shmemi_mpi_burst): a vector of
 * one kind of operation to one PE's region, issued as ONE MPI call with indexed
 * datatypes: MPI_Accumulate of the operands (atomics), MPI_Put of the packed payloads,
 * MPI_Get scattering into the users' buffers (docs/queues_design.md has the table). The comm
 * queue (src/queue/cq_rma.c) sends its chunks this way. Completion is
 * shmemi_mpi_burst_flush: MPI_Win_flush(_all) of the windows the bursts touched, or
 * MPI_Win_flush_local(_all) when only the origin buffers are wanted back. */
#include "xport_mpi.h"
#include <limits.h>

size_t shmemi_mpi_burst_scratch_bytes(size_t maxrec)
{
    return 2 * sizeof(MPI_Aint) * maxrec + sizeof(int) * maxrec;
}

void shmemi_mpi_burst_scratch_init(shmemi_mpi_burst_scratch_t *sc, void *mem, size_t maxrec)
{
    sc->tdisp = (MPI_Aint *)mem;
    sc->odisp = sc->tdisp + maxrec;
    sc->lens = (int *)(void *)(sc->odisp + maxrec);
}

static inline void note(shmemi_xp_status_t *st, int rc, const char *call)
{
    if (SHMEMI_UNLIKELY(rc != MPI_SUCCESS) && st->rc == MPI_SUCCESS) {
        st->rc = rc;
        st->call = call;
    }
}

static inline MPI_Win region_win(int region)
{
    return region ? shmemi.data_win : shmemi.heap_win;
}

/* Region offsets are offsets from heap_base / data_base: the heap starts at
 * heap_adj[pe] in its window. */
static inline MPI_Aint region_disp(int region, int pe)
{
    return region ? 0 : shmemi.heap_adj[pe];
}

void shmemi_mpi_burst_flush(const int dirty[2], int pe, int local_only, shmemi_xp_status_t *st)
{
    for (int r = 0; r < 2; r++) {
        if (!dirty[r])
            continue;
        MPI_Win win = region_win(r);
        if (local_only) /* errors here show again at the completing flush */
            pe >= 0 ? MPI_Win_flush_local(pe, win) : MPI_Win_flush_local_all(win);
        else if (pe >= 0)
            note(st, MPI_Win_flush(pe, win), "MPI_Win_flush");
        else
            note(st, MPI_Win_flush_all(win), "MPI_Win_flush_all");
    }
}

void shmemi_mpi_region_bytes(int is_get, void *buf, size_t len, int pe, int region,
                             uint64_t disp, int done, shmemi_xp_status_t *st)
{
    MPI_Win w = region_win(region);
    note(st, shmemi_mpi_bytes(is_get, (char *)buf, len, pe,
                              region_disp(region, pe) + (MPI_Aint)disp, w),
         is_get ? "MPI_Get" : "MPI_Put");
    if (done == SHMEMI_XP_LOCAL)
        note(st, MPI_Win_flush_local(pe, w), "MPI_Win_flush_local");
    else if (done == SHMEMI_XP_REMOTE)
        note(st, MPI_Win_flush(pe, w), "MPI_Win_flush");
}

/* The target datatype of a typed burst: n elements of bt (es bytes) at byte offsets
 * disp. int displacements in elements when they fit (as a hand-written
 * MPI_Type_create_indexed_block would be): half the type description MPICH ships with
 * every call; bytes (hindexed_block) otherwise. Committed. */
static void block_target_type(shmemi_mpi_burst_scratch_t *sc, const uint64_t *disp, uint32_t n,
                              uint64_t es, MPI_Datatype bt, MPI_Datatype *tt,
                              shmemi_xp_status_t *st)
{
    uint64_t bad = 0, lim = (uint64_t)INT_MAX * es;
    for (uint32_t i = 0; i < n; i++) {
        bad |= (disp[i] % es) | (uint64_t)(disp[i] >= lim);
        sc->lens[i] = (int)(disp[i] / es);
    }
    if (!bad) {
        note(st, MPI_Type_create_indexed_block((int)n, 1, sc->lens, bt, tt),
             "MPI_Type_create_indexed_block");
    } else {
        for (uint32_t i = 0; i < n; i++)
            sc->tdisp[i] = (MPI_Aint)disp[i];
        note(st, MPI_Type_create_hindexed_block((int)n, 1, sc->tdisp, bt, tt),
             "MPI_Type_create_hindexed_block");
    }
    note(st, MPI_Type_commit(tt), "MPI_Type_commit");
}

/* One-element typed records: displacements, then the values (PUT) or the 8-byte local
 * addresses (GET). */
static size_t typed_burst(const shmemi_xp_burst_t *b, shmemi_mpi_burst_scratch_t *sc,
                          MPI_Aint tbase, MPI_Win w, shmemi_xp_status_t *st)
{
    MPI_Datatype bt = shmemi_mpi_type(b->type), tt, ot;
    uint32_t n = b->n;
    block_target_type(sc, b->disp, n, b->esize, bt, &tt, st);
    if (b->kind == SHMEMI_XB_TYPED_PUTS) {
        note(st, MPI_Put(b->elems, (int)n, bt, b->pe, tbase, 1, tt, w), "MPI_Put");
    } else {
        for (uint32_t i = 0; i < n; i++) {
            uint64_t a;
            memcpy(&a, b->elems + (size_t)i * 8, 8);
            sc->odisp[i] = (MPI_Aint)a;
        }
        note(st, MPI_Type_create_hindexed_block((int)n, 1, sc->odisp, bt, &ot),
             "MPI_Type_create_hindexed_block");
        note(st, MPI_Type_commit(&ot), "MPI_Type_commit");
        note(st, MPI_Get(MPI_BOTTOM, 1, ot, b->pe, tbase, 1, tt, w), "MPI_Get");
        MPI_Type_free(&ot);
    }
    MPI_Type_free(&tt);
    return (size_t)n * b->esize;
}

/* Record streams {disp, len, payload padded to 8 | local address} (comm_queue.h). */
static size_t record_burst(const shmemi_xp_burst_t *b, shmemi_mpi_burst_scratch_t *sc,
                           MPI_Aint tbase, MPI_Win w, shmemi_xp_status_t *st)
{
    int is_put = b->kind == SHMEMI_XB_PUTS;
    unsigned char *data = b->records, *p = data;
    uint32_t n = b->n;
    size_t bytes = 0;
    MPI_Datatype tt, ot;
    uint64_t len0 = 0, uneven = 0; /* all records one length, int byte offsets? */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d, len, x;
        memcpy(&d, p, 8);
        memcpy(&len, p + 8, 8);
        if (i == 0)
            len0 = len;
        uneven |= (len ^ len0) | (uint64_t)(d > (uint64_t)INT_MAX);
        sc->lens[i] = (int)len;
        sc->tdisp[i] = (MPI_Aint)d;
        bytes += len;
        if (is_put) {
            sc->odisp[i] = (MPI_Aint)(p + 16 - data);
            p += 16 + ((len + 7) & ~(uint64_t)7);
        } else {
            memcpy(&x, p + 16, 8);
            sc->odisp[i] = (MPI_Aint)x;
            p += 24;
        }
    }
    if (!uneven) {
        /* Records of one length (strided blocks, fixed-size pushmem): block types,
         * as a hand-written MPI program would use. MPICH ships the target type with
         * every put/get; indexed_block's int offsets are a third of hindexed's
         * per-record description, and a PUT's payloads sit at one stride. */
        int *td = sc->lens; /* the lengths are all len0: reuse the array */
        for (uint32_t i = 0; i < n; i++)
            td[i] = (int)sc->tdisp[i];
        note(st, MPI_Type_create_indexed_block((int)n, (int)len0, td, MPI_BYTE, &tt),
             "MPI_Type_create_indexed_block");
        if (is_put)
            note(st, MPI_Type_create_hvector((int)n, (int)len0,
                                             (MPI_Aint)(16 + ((len0 + 7) & ~(uint64_t)7)),
                                             MPI_BYTE, &ot),
                 "MPI_Type_create_hvector");
        else
            note(st, MPI_Type_create_hindexed_block((int)n, (int)len0, sc->odisp, MPI_BYTE, &ot),
                 "MPI_Type_create_hindexed_block");
    } else {
        note(st, MPI_Type_create_hindexed((int)n, sc->lens, sc->tdisp, MPI_BYTE, &tt),
             "MPI_Type_create_hindexed");
        note(st, MPI_Type_create_hindexed((int)n, sc->lens, sc->odisp, MPI_BYTE, &ot),
             "MPI_Type_create_hindexed");
    }
    note(st, MPI_Type_commit(&tt), "MPI_Type_commit");
    note(st, MPI_Type_commit(&ot), "MPI_Type_commit");
    if (is_put) /* the vector starts at the first payload */
        note(st, MPI_Put(uneven ? data : data + 16, 1, ot, b->pe, tbase, 1, tt, w), "MPI_Put");
    else
        note(st, MPI_Get(MPI_BOTTOM, 1, ot, b->pe, tbase, 1, tt, w), "MPI_Get");
    MPI_Type_free(&tt);
    MPI_Type_free(&ot);
    return bytes;
}

static size_t atomic_burst(const shmemi_xp_burst_t *b, shmemi_mpi_burst_scratch_t *sc,
                           MPI_Aint tbase, MPI_Win w, shmemi_xp_status_t *st)
{
    MPI_Op op = shmemi_mpi_op(b->op);
    MPI_Datatype bt = shmemi_mpi_type(b->type), tt;
    if (b->n == 1) {
        note(st, MPI_Accumulate(b->elems, 1, bt, b->pe, tbase + (MPI_Aint)b->disp[0], 1, bt, op, w),
             "MPI_Accumulate");
    } else {
        block_target_type(sc, b->disp, b->n, b->esize, bt, &tt, st);
        note(st, MPI_Accumulate(b->elems, (int)b->n, bt, b->pe, tbase, 1, tt, op, w),
             "MPI_Accumulate");
        MPI_Type_free(&tt);
    }
    return (size_t)b->n * b->esize;
}

size_t shmemi_mpi_burst(const shmemi_xp_burst_t *b, shmemi_mpi_burst_scratch_t *sc,
                        shmemi_xp_status_t *st)
{
    MPI_Win w = region_win(b->region);
    MPI_Aint tbase = region_disp(b->region, b->pe);
    switch (b->kind) {
    case SHMEMI_XB_TYPED_PUTS:
    case SHMEMI_XB_TYPED_GETS: return typed_burst(b, sc, tbase, w, st);
    case SHMEMI_XB_PUTS:
    case SHMEMI_XB_GETS: return record_burst(b, sc, tbase, w, st);
    default: return atomic_burst(b, sc, tbase, w, st);
    }
}
