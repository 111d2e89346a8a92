/* cq_rma.c: the comm queue's RMA path: a chunk leaves as one burst of the MPI transport
 * (xport.h, shmemi_xp_burst: one MPI call with indexed datatypes; bursts to another node
 * are one AM request when xport.h says so: the atomic domain, and no wait for the target). Here only the queue's
 * bookkeeping: which regions are dirty, the PEs sent to, the chunks whose buffers MPI
 * still reads, the cap on unflushed operations.
 * Completion flushes the regions the queue touched for each PE it sent to (q->rma_pes);
 * a chunk's buffer comes back after a local flush of each. Per target, never flush_all /
 * flush_local_all: on MPICH 4.0.2 ch4:ucx those returned before small indexed-datatype
 * MPI_Puts to several targets had read their origin buffers, so a reused chunk's later
 * payloads landed at earlier indices (4 PEs off the node, test_commq_putget
 * PutsToSeveralPesAlternatingWindowsLandExactly); per-target flushes complete them. */
#include "comm_queue.h"

int cq_rma_complete(shmem_queue_t q)
{
    cq_mpirc_t st = {0, NULL};
    for (int i = 0; i < q->n_rma_pes; i++) {
        int pe = q->rma_pes[i];
        shmemi_xp_burst_flush(q->rma_dirty, pe, 0, &st);
        q->rma_pe_dirty[cq_idx(q, pe)] = 0;
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
    cq_mpirc_t st = {0, NULL};
    for (int i = 0; i < q->n_rma_pes; i++)
        shmemi_xp_burst_flush(q->rma_dirty, q->rma_pes[i], 1, &st);
    while (q->rma_pending) {
        cq_chunk_t *c = q->rma_pending;
        q->rma_pending = c->next;
        chunk_put(q, c);
    }
}

/* The neutral operation of an atomic slot. */
static inline shmemi_xop_t slot_op(int slot)
{
    switch (slot) {
    case CQ_S_ADD: return SHMEMI_XOP_SUM;
    case CQ_S_SET: return SHMEMI_XOP_SET;
    case CQ_S_AND: return SHMEMI_XOP_AND;
    case CQ_S_OR: return SHMEMI_XOP_OR;
    default: return SHMEMI_XOP_XOR;
    }
}

int cq_rma_burst(shmem_queue_t q, cq_chunk_t *c, uint32_t n)
{
    cq_msghdr_t *h = chunk_hdr(c);
    unsigned char *data = chunk_data(c);
    cq_mpirc_t st = {0, NULL};
    if (q->n_rma_issued + n > CQ_PLAN_MAX_RMA_INFLIGHT && cq_rma_complete(q) != 0)
        return SHMEM_QUEUE_ERR_MPI; /* reported by cq_rma_complete */
    shmemi_xp_burst_t b = {.pe = c->pe, .region = h->win, .type = (shmemi_xtype_t)h->tidx,
                           .esize = h->esize, .n = n, .tagged = cq_chunk_tagged(q, c)};
    /* slot layout (atomics, one-element typed PUT/GET): displacements, then the operands
     * where slot_open put them (slot_issue moves them for AM only) */
    b.disp = (const uint64_t *)(const void *)data;
    b.elems = data + chunk_records(q, h->esize) * 8;
    if ((h->slot == CQ_S_PUT || h->slot == CQ_S_GET) && h->tidx != SHMEMI_XT_BYTES) {
        b.kind = h->slot == CQ_S_PUT ? SHMEMI_XB_TYPED_PUTS : SHMEMI_XB_TYPED_GETS;
        b.esize = cq_esize[h->tidx]; /* a GET's operand is the 8-byte address */
    } else if (h->slot == CQ_S_PUT || h->slot == CQ_S_GET) {
        b.kind = h->slot == CQ_S_PUT ? SHMEMI_XB_PUTS : SHMEMI_XB_GETS;
        b.records = data;
    } else {
        b.kind = SHMEMI_XB_ATOMICS;
        b.op = slot_op(h->slot);
    }
    q->st.bytes += shmemi_xp_burst(&b, &q->burst_scratch, &st);
    c->next = q->rma_pending;
    q->rma_pending = c;
    q->rma_dirty[h->win] = 1;
    cq_rma_note_pe(q, c->pe);
    q->n_rma_issued += n;
    q->st.bursts++;
    return cq_mpi_result(&st);
}
