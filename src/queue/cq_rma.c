/* cq_rma.c: the comm queue's MPI transport. A burst is one MPI call with indexed
 * datatypes: MPI_Accumulate of the chunk's operands (atomics), MPI_Put of the packed
 * payloads, MPI_Get scattering into the users' buffers (docs/queues.md has the table).
 * Completion is MPI_Win_flush of the windows the queue touched, for each PE it sent to
 * (q->rma_pes); a chunk's buffer comes back after MPI_Win_flush_local of each. Not
 * MPI_Win_flush_all/flush_local_all: on MPICH 4.0.2 ch4:ucx they returned before small
 * indexed-datatype MPI_Puts to several targets had read their origin buffers, so a
 * reused chunk's later payloads landed at earlier indices (4 PEs off the node, test_commq
 * PutsToSeveralPesAlternatingWindowsLandExactly); per-target flushes complete them. One
 * call per target PE instead of one per window: MPICH's flush_all visits them too. */
#include "comm_queue.h"
#include <limits.h>

int cq_rma_complete(shmem_queue_t q)
{
    cq_mpirc_t st = {MPI_SUCCESS, NULL};
    for (int i = 0; i < q->n_rma_pes; i++) {
        int pe = q->rma_pes[i];
        for (int w = 0; w < 2; w++)
            if (q->rma_dirty[w])
                cq_mpi_note(&st, MPI_Win_flush(pe, w ? shmemi.data_win : shmemi.heap_win),
                            "MPI_Win_flush");
        q->rma_pe_dirty[pe] = 0;
    }
    q->n_rma_pes = 0;
    q->rma_dirty[0] = q->rma_dirty[1] = 0;
    q->outstanding -= q->n_rma_issued;
    q->n_rma_issued = 0;
    while (q->rma_pending) {
        cq_chunk_t *c = q->rma_pending;
        q->rma_pending = c->next;
        chunk_put(q, c);
    }
    return cq_mpi_result(&st);
}

void cq_rma_reclaim(shmem_queue_t q)
{
    for (int i = 0; i < q->n_rma_pes; i++)
        for (int w = 0; w < 2; w++)
            if (q->rma_dirty[w])
                MPI_Win_flush_local(q->rma_pes[i], w ? shmemi.data_win : shmemi.heap_win);
    while (q->rma_pending) {
        cq_chunk_t *c = q->rma_pending;
        q->rma_pending = c->next;
        chunk_put(q, c);
    }
}

/* The target datatype of a slot burst: n elements of bt (es bytes) at byte offsets
 * disp. int displacements in elements when they fit (as a hand-written
 * MPI_Type_create_indexed_block would be): half the type description MPICH ships with
 * every call; bytes (hindexed_block) otherwise. Committed. */
static void block_target_type(shmem_queue_t q, const uint64_t *disp, uint32_t n, uint64_t es,
                              MPI_Datatype bt, MPI_Datatype *tt, cq_mpirc_t *st)
{
    uint64_t bad = 0, lim = (uint64_t)INT_MAX * es;
    for (uint32_t i = 0; i < n; i++) {
        bad |= (disp[i] % es) | (uint64_t)(disp[i] >= lim);
        q->lens[i] = (int)(disp[i] / es);
    }
    if (!bad) {
        cq_mpi_note(st, MPI_Type_create_indexed_block((int)n, 1, q->lens, bt, tt),
                    "MPI_Type_create_indexed_block");
    } else {
        for (uint32_t i = 0; i < n; i++)
            q->tdisp[i] = (MPI_Aint)disp[i];
        cq_mpi_note(st, MPI_Type_create_hindexed_block((int)n, 1, q->tdisp, bt, tt),
                    "MPI_Type_create_hindexed_block");
    }
    cq_mpi_note(st, MPI_Type_commit(tt), "MPI_Type_commit");
}

int cq_rma_burst(shmem_queue_t q, cq_chunk_t *c, uint32_t n)
{
    cq_msghdr_t *h = chunk_hdr(c);
    unsigned char *data = chunk_data(c);
    MPI_Win w = h->win ? shmemi.data_win : shmemi.heap_win;
    int pe = c->pe;
    cq_mpirc_t st = {MPI_SUCCESS, NULL};
    /* chunk offsets are region offsets: the heap starts at heap_adj[pe] in its window */
    MPI_Aint tbase = h->win ? 0 : shmemi.heap_adj[pe];
    if (q->n_rma_issued + n > CQ_MAX_RMA_INFLIGHT && cq_rma_complete(q) != 0)
        return SHMEM_QUEUE_ERR_MPI; /* reported by cq_rma_complete */
    MPI_Datatype tt, ot;
    if ((h->slot == CQ_S_PUT || h->slot == CQ_S_GET) && h->tidx != CQ_T_BYTES) {
        /* one-element typed records (cq_push.c): displacements, then the values (PUT) or
         * the local addresses (GET), in the slot layout of the atomics */
        MPI_Datatype bt = cq_mpitype[h->tidx];
        uint64_t es = cq_esize[h->tidx];
        const uint64_t *disp = (const uint64_t *)(const void *)data;
        unsigned char *opnd = data + chunk_records(q, h->esize) * 8;
        block_target_type(q, disp, n, es, bt, &tt, &st);
        if (h->slot == CQ_S_PUT) {
            cq_mpi_note(&st, MPI_Put(opnd, (int)n, bt, pe, tbase, 1, tt, w), "MPI_Put");
        } else {
            for (uint32_t i = 0; i < n; i++) {
                uint64_t a;
                memcpy(&a, opnd + (size_t)i * 8, 8);
                q->odisp[i] = (MPI_Aint)a;
            }
            cq_mpi_note(&st, MPI_Type_create_hindexed_block((int)n, 1, q->odisp, bt, &ot),
                        "MPI_Type_create_hindexed_block");
            cq_mpi_note(&st, MPI_Type_commit(&ot), "MPI_Type_commit");
            cq_mpi_note(&st, MPI_Get(MPI_BOTTOM, 1, ot, pe, tbase, 1, tt, w), "MPI_Get");
            MPI_Type_free(&ot);
        }
        MPI_Type_free(&tt);
        q->st.bytes += (uint64_t)n * es;
    } else if (h->slot == CQ_S_PUT || h->slot == CQ_S_GET) {
        unsigned char *p = data;
        size_t bytes = 0;
        uint64_t len0 = 0, uneven = 0; /* all records one length, int byte offsets? */
        for (uint32_t i = 0; i < n; i++) {
            uint64_t d, len, x;
            memcpy(&d, p, 8);
            memcpy(&len, p + 8, 8);
            if (i == 0)
                len0 = len;
            uneven |= (len ^ len0) | (uint64_t)(d > (uint64_t)INT_MAX);
            q->lens[i] = (int)len;
            q->tdisp[i] = (MPI_Aint)d;
            bytes += len;
            if (h->slot == CQ_S_PUT) {
                q->odisp[i] = (MPI_Aint)(p + 16 - data);
                p += 16 + ((len + 7) & ~(uint64_t)7);
            } else {
                memcpy(&x, p + 16, 8);
                q->odisp[i] = (MPI_Aint)x;
                p += 24;
            }
        }
        if (!uneven) {
            /* Records of one length (strided blocks, fixed-size pushmem): block types,
             * as a hand-written MPI program would use. MPICH ships the target type with
             * every put/get; indexed_block's int offsets are a third of hindexed's
             * per-record description, and a PUT's payloads sit at one stride. */
            int *td = q->lens; /* the lengths are all len0: reuse the array */
            for (uint32_t i = 0; i < n; i++)
                td[i] = (int)q->tdisp[i];
            cq_mpi_note(&st, MPI_Type_create_indexed_block((int)n, (int)len0, td, MPI_BYTE, &tt),
                        "MPI_Type_create_indexed_block");
            if (h->slot == CQ_S_PUT)
                cq_mpi_note(&st, MPI_Type_create_hvector((int)n, (int)len0,
                                                         (MPI_Aint)(16 + ((len0 + 7) & ~(uint64_t)7)),
                                                         MPI_BYTE, &ot),
                            "MPI_Type_create_hvector");
            else
                cq_mpi_note(&st, MPI_Type_create_hindexed_block((int)n, (int)len0, q->odisp,
                                                                MPI_BYTE, &ot),
                            "MPI_Type_create_hindexed_block");
        } else {
            cq_mpi_note(&st, MPI_Type_create_hindexed((int)n, q->lens, q->tdisp, MPI_BYTE, &tt),
                        "MPI_Type_create_hindexed");
            cq_mpi_note(&st, MPI_Type_create_hindexed((int)n, q->lens, q->odisp, MPI_BYTE, &ot),
                        "MPI_Type_create_hindexed");
        }
        cq_mpi_note(&st, MPI_Type_commit(&tt), "MPI_Type_commit");
        cq_mpi_note(&st, MPI_Type_commit(&ot), "MPI_Type_commit");
        if (h->slot == CQ_S_PUT) /* the vector starts at the first payload */
            cq_mpi_note(&st, MPI_Put(uneven ? data : data + 16, 1, ot, pe, tbase, 1, tt, w),
                        "MPI_Put");
        else
            cq_mpi_note(&st, MPI_Get(MPI_BOTTOM, 1, ot, pe, tbase, 1, tt, w), "MPI_Get");
        MPI_Type_free(&tt);
        MPI_Type_free(&ot);
        q->st.bytes += bytes;
    } else {
        MPI_Op op = h->slot == CQ_S_ADD   ? MPI_SUM
                    : h->slot == CQ_S_SET ? MPI_REPLACE
                    : h->slot == CQ_S_AND ? MPI_BAND
                    : h->slot == CQ_S_OR  ? MPI_BOR
                                          : MPI_BXOR;
        MPI_Datatype bt = cq_mpitype[h->tidx];
        const uint64_t *disp = (const uint64_t *)data;
        /* operands stay where slot_open put them (slot_issue moves them for AM only) */
        unsigned char *opnd = data + chunk_records(q, h->esize) * 8;
        if (n == 1) {
            cq_mpi_note(&st, MPI_Accumulate(opnd, 1, bt, pe, tbase + (MPI_Aint)disp[0], 1, bt, op, w),
                        "MPI_Accumulate");
        } else {
            block_target_type(q, disp, n, h->esize, bt, &tt, &st);
            cq_mpi_note(&st, MPI_Accumulate(opnd, (int)n, bt, pe, tbase, 1, tt, op, w),
                        "MPI_Accumulate");
            MPI_Type_free(&tt);
        }
        q->st.bytes += (uint64_t)n * h->esize;
    }
    c->next = q->rma_pending;
    q->rma_pending = c;
    q->rma_dirty[h->win] = 1;
    cq_rma_note_pe(q, pe);
    q->n_rma_issued += n;
    q->st.bursts++;
    return cq_mpi_result(&st);
}
