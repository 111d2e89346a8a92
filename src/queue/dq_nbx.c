/*
 * dq_nbx.c: sparse exchange for direct-mode data-queue flushes (docs/data_queues.md,
 * "Sparse flushes (NBX)"), after Hoefler, Siebert and Lumsdaine's NBX (PPoPP 2010).
 *
 * Each PE sends its outgoing room to each destination that has data, one message per
 * destination (MPI_Isend on q->comm, tag by flush parity). Receivers find messages with
 * MPI_Improbe(MPI_ANY_SOURCE), take min(message, free room) into the source's incoming
 * room (the whole message through a scratch buffer when it does not fit) and answer
 * with an acknowledgement carrying the bytes taken. A PE whose sends are complete and
 * acknowledged enters one MPI_Iallreduce(MAX) of its overflow flag, and keeps serving
 * until it completes. That reduction is NBX's barrier: it completes only when every PE
 * has entered, so every message of the flush has been received and acknowledged; and it
 * carries the flag, so every PE returns OVERFLOW alike, as with the alltoallv exchange.
 *
 * Why an acknowledgement instead of NBX's MPI_Issend: a receiver may take only part of
 * a message (its room is full), and the sender must learn how much to keep. NBX proper
 * cannot tell the sender after the fact: a receiver may already be inside the barrier
 * when a message reaches it. The acknowledgement is sent when the receive completed, so
 * it also does what the synchronous send did (the sender knows the message arrived),
 * and the overflow agreement needs no second collective.
 *
 * Flushes never mix: a PE that saw flush k's reduction complete may send flush k+1's
 * data to a PE still polling flush k, so consecutive flushes use two tag pairs by
 * parity, and that message waits in MPI until its receiver starts flush k+1. Flush
 * k+2's cannot come earlier: its sender needs this PE's part of flush k+1. Queues never
 * mix: each has its own communicator.
 *
 * A PE outside this queue's calls still serves its flush: a progress hook polls while
 * the PE waits in any other library call, as MPI progresses a pending alltoallv.
 */
#include "dq_nbx.h"
#include "dq_plan.h"
#include <limits.h>

/* auto: NBX from 4096 PEs. Measured at 2-16 PEs (one 2-core VM): neither exchange wins
 * beyond the noise. bench/simulate's LogGP model puts the crossover at 1 destination
 * per PE and flush below 64 PEs, 16 between 2048 and 4096, 100 between 8192 and 16384;
 * dense flushes never (NBX sends twice the messages). docs/data_queues.md, "Sparse
 * flushes (NBX)", has the figures. */
#define DQ_NBX_AUTO_MIN_PES 4096

int shmemi_queue_data_nbx_fits(size_t maxroom)
{
    return maxroom <= (size_t)INT_MAX;
}

int shmemi_queue_data_nbx_auto(int npes, size_t maxroom)
{
    return npes >= DQ_NBX_AUTO_MIN_PES && shmemi_queue_data_nbx_fits(maxroom);
}

static int dq_nbx_hook(void *arg);

/* NBX queues whose flushes the hook serves: one hook for all (the runtime has a few
 * hundred hook slots), a list linked through the queues' NBX state. */
static pthread_mutex_t nbx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmemi_dataq *nbx_first;
static int nbx_hooked;

int shmemi_queue_data_nbx_alloc(struct shmemi_dataq *q)
{
    int rc = 0;
    pthread_mutex_lock(&nbx_lock);
    if (!nbx_hooked) {
        if (shmemi_progress_register(dq_nbx_hook, NULL) == 0)
            nbx_hooked = 1;
        else
            rc = SHMEM_QUEUE_ERR_NOMEM;
    }
    pthread_mutex_unlock(&nbx_lock);
    if (!rc && (q->nbx = calloc(1, sizeof *q->nbx)) == NULL)
        rc = SHMEM_QUEUE_ERR_NOMEM;
    return rc;
}

void shmemi_queue_data_nbx_enable(struct shmemi_dataq *q)
{
    pthread_mutex_lock(&nbx_lock);
    q->nbx->prev = NULL;
    q->nbx->next = nbx_first;
    if (nbx_first)
        nbx_first->nbx->prev = q;
    nbx_first = q;
    q->nbx->linked = 1;
    pthread_mutex_unlock(&nbx_lock);
}

void shmemi_queue_data_nbx_free(struct shmemi_dataq *q)
{
    struct shmemi_dq_nbx *x = q->nbx;
    if (x == NULL)
        return;
    pthread_mutex_lock(&nbx_lock);
    if (x->linked) {
        if (x->prev)
            x->prev->nbx->next = x->next;
        else
            nbx_first = x->next;
        if (x->next)
            x->next->nbx->prev = x->prev;
    }
    pthread_mutex_unlock(&nbx_lock);
    for (int i = 0; i < x->rcap; i++)
        if (x->r[i]) {
            free(x->r[i]->tmp);
            free(x->r[i]);
        }
    free(x->r);
    free(x->s);
    free(x->sreq);
    free(x);
    q->nbx = NULL;
}

uint64_t shmemi_queue_data_nbx_scratch(struct shmemi_dataq *q)
{
    const struct shmemi_dq_nbx *x = q->nbx;
    uint64_t b = (uint64_t)x->scap * (sizeof *x->s + sizeof *x->sreq) +
                 (uint64_t)x->rcap * sizeof *x->r;
    for (int i = 0; i < x->rcap; i++)
        if (x->r[i])
            b += sizeof **x->r;
    return b;
}

void shmemi_queue_data_nbx_fini(void)
{
    pthread_mutex_lock(&nbx_lock);
    if (nbx_hooked && nbx_first == NULL) {
        shmemi_progress_unregister(dq_nbx_hook, NULL);
        nbx_hooked = 0;
    }
    pthread_mutex_unlock(&nbx_lock);
}

static int dq_nbx_err(const char *call, int rc)
{
    return shmemi_queue_mpi_err("shmem_queue_global_flush", call, rc);
}

/* Room for one more send entry (kept across flushes). */
static int dq_nbx_grow_sends(struct shmemi_dq_nbx *x)
{
    if (x->ns < x->scap)
        return 0;
    int cap = (int)dq_nbx_next_cap((uint64_t)x->scap);
    struct dq_nbx_send *s = realloc(x->s, (size_t)cap * sizeof *s);
    if (s == NULL)
        return SHMEM_QUEUE_ERR_NOMEM;
    x->s = s;
    MPI_Request *r = realloc(x->sreq, (size_t)cap * sizeof *r);
    if (r == NULL)
        return SHMEM_QUEUE_ERR_NOMEM;
    x->sreq = r;
    x->scap = cap;
    return 0;
}

/* The next free receive entry (entries are reused across flushes; only the pointer
 * array moves when it grows). */
static struct dq_nbx_recv *dq_nbx_next_recv(struct shmemi_dq_nbx *x)
{
    if (x->nr == x->rcap) {
        int cap = (int)dq_nbx_next_cap((uint64_t)x->rcap);
        struct dq_nbx_recv **r = realloc(x->r, (size_t)cap * sizeof *r);
        if (r == NULL)
            return NULL;
        for (int i = x->rcap; i < cap; i++)
            r[i] = NULL;
        x->r = r;
        x->rcap = cap;
    }
    if (x->r[x->nr] == NULL && (x->r[x->nr] = calloc(1, sizeof **x->r)) == NULL)
        return NULL;
    return x->r[x->nr++];
}

/* The own share, which MPI never moves, done at the start (so its overflow is known
 * before this PE enters the reduction). An empty own incoming room trades places with
 * the outgoing one, as in dq_flush.c; else what fits is copied. Returns 1 on overflow.
 * Caller holds the lock. */
static int dq_nbx_self(struct shmemi_dataq *q)
{
    struct shmemq_dataq_hot *h = &q->h;
    int me = q->me;
    size_t moved;
    int ovf = 0;
    if (h->in_len[me] == 0) {
        char *t = h->in_at[me];
        h->in_at[me] = h->out_at[me];
        h->out_at[me] = t;
        h->in_head[me] = 0;
        moved = h->in_len[me] = h->out_len[me];
        h->out_len[me] = 0;
    } else {
        char *in = h->in_at[me];
        if (h->in_head[me]) {
            memmove(in, in + h->in_head[me], h->in_len[me]);
            h->in_head[me] = 0;
        }
        size_t out = h->out_len[me];
        moved = (size_t)dq_plan_direct_moves(out, h->room - h->in_len[me]);
        memcpy(in + h->in_len[me], h->out_at[me], moved);
        memmove(h->out_at[me], h->out_at[me] + moved, out - moved);
        h->in_len[me] += moved;
        h->out_len[me] = out - moved;
        ovf = moved < out;
    }
    q->stats.bytes += moved;
    q->nbx->self_bytes = moved;
    if (moved)
        h->any_from = 0;
    return ovf;
}

int shmemi_queue_data_nbx_start(struct shmemi_dataq *q, int bg)
{
    struct shmemi_dq_nbx *x = q->nbx;
    struct shmemq_dataq_hot *h = &q->h;
    int rc = 0;
    x->owner = pthread_self(); /* before the phase: the hook reads it */
    x->ns = 0;
    x->nr = 0;
    x->r_open = 0;
    x->in_coll = 0;
    x->sends_done = 0;
    x->err = 0;
    q->bg_done = 0; /* a new flush: an unreported background result is stale */
    dq_lock(q);
    x->ovf_in = (uint64_t)dq_nbx_self(q);
    /* Destinations with data, ascending. The scan is the one O(P) pass of a flush (the
     * push path keeps no list); what the exchange holds is O(destinations). */
    for (int p = 0; p < h->npes && !rc; p++) {
        if (p == q->me || h->out_len[p] == 0)
            continue;
        if ((rc = dq_nbx_grow_sends(x)) == 0)
            x->s[x->ns++] = (struct dq_nbx_send){.pe = p, .len = h->out_len[p]};
    }
    if (!rc) /* under the lock: a concurrent pop must see the flush in flight */
        h->phase = SHMEMI_DATAQ_NBX;
    dq_unlock(q);
    if (rc)
        return rc;
    q->started++;
    q->bg = bg;
    x->tag = (int)(q->started & 1) * 2;
    x->acks_left = x->ns;
    /* Only bytes [0, len) of each room are read: later pushes append behind them.
     * Posted from the first destination after this PE, wrapping round: were every PE to
     * start at the lowest, all first messages of a flush would meet at one PE. */
    int first = 0;
    while (first < x->ns && x->s[first].pe < q->me)
        first++;
    for (int k = 0; k < x->ns; k++) {
        int i = first + k < x->ns ? first + k : first + k - x->ns;
        struct dq_nbx_send *s = &x->s[i];
        rc = MPI_Isend(h->out_at[s->pe], (int)s->len, MPI_BYTE, s->pe, x->tag, q->comm,
                       &x->sreq[i]);
        if (rc != MPI_SUCCESS) {
            h->phase = SHMEMI_DATAQ_IDLE;
            return dq_nbx_err("MPI_Isend", rc);
        }
    }
    return 0;
}

/* An acknowledgement from pe: the bytes it took of our message. */
static int dq_nbx_acked(struct shmemi_dq_nbx *x, int pe, uint64_t taken)
{
    int lo = 0, hi = x->ns - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (x->s[mid].pe == pe) {
            struct dq_nbx_send *s = &x->s[mid];
            if (s->acked || taken > s->len)
                break;
            s->acked = 1;
            s->accepted = (size_t)taken;
            x->acks_left--;
            if (taken < s->len)
                x->ovf_in = 1;
            return 0;
        }
        if (x->s[mid].pe < pe)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return dq_nbx_err("acknowledgement from a PE this flush sent nothing to", MPI_ERR_OTHER);
}

/* A message of this flush from st's source is ready: receive what fits into the
 * source's incoming room. */
static int dq_nbx_receive(struct shmemi_dataq *q, MPI_Message *msg, MPI_Status *st)
{
    struct shmemi_dq_nbx *x = q->nbx;
    struct shmemq_dataq_hot *h = &q->h;
    int cnt = 0, src = st->MPI_SOURCE;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    struct dq_nbx_recv *e = dq_nbx_next_recv(x);
    if (e == NULL)
        return SHMEM_QUEUE_ERR_NOMEM;
    dq_lock(q);
    /* Compact, as the alltoallv flush does at its start: the free room is all behind
     * the unpopped bytes. Pops meanwhile move in_head forward and shrink in_len, so
     * in_head + in_len (== off) stays where the new bytes go. */
    char *base = h->in_at[src];
    if (h->in_head[src]) {
        memmove(base, base + h->in_head[src], h->in_len[src]);
        h->in_head[src] = 0;
    }
    e->off = h->in_len[src];
    dq_unlock(q);
    e->pe = src;
    e->state = 0;
    e->accept = (size_t)dq_plan_direct_moves((uint64_t)cnt, h->room - e->off);
    e->tmp = NULL;
    char *to = base + e->off;
    if (e->accept < (size_t)cnt) { /* overflow: MPI cannot truncate a message */
        if ((e->tmp = malloc((size_t)cnt)) == NULL)
            return SHMEM_QUEUE_ERR_NOMEM;
        to = e->tmp;
    }
    x->r_open++;
    int rc = MPI_Imrecv(to, cnt, MPI_BYTE, msg, &e->req);
    return rc == MPI_SUCCESS ? 0 : dq_nbx_err("MPI_Imrecv", rc);
}

/* Receives that completed become poppable and are acknowledged. */
static int dq_nbx_test_recvs(struct shmemi_dataq *q, int *work)
{
    struct shmemi_dq_nbx *x = q->nbx;
    for (int i = 0; i < x->nr && x->r_open; i++) {
        struct dq_nbx_recv *e = x->r[i];
        int done = 0, rc;
        if (e->state == 0) {
            if ((rc = MPI_Test(&e->req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                return dq_nbx_err("MPI_Test", rc);
            if (!done)
                continue;
            char *at = q->h.in_at[e->pe] + e->off;
            if (e->tmp) {
                memcpy(at, e->tmp, e->accept);
                free(e->tmp);
                e->tmp = NULL;
            }
            dq_lock(q);
            q->h.in_len[e->pe] += e->accept;
            q->h.any_from = 0;
            dq_unlock(q);
            e->ack = e->accept;
            rc = MPI_Isend(&e->ack, 1, MPI_UINT64_T, e->pe, x->tag + 1, q->comm, &e->ack_req);
            if (rc != MPI_SUCCESS)
                return dq_nbx_err("MPI_Isend", rc);
            e->state = 1;
            (*work)++;
        }
        if (e->state == 1) {
            if ((rc = MPI_Test(&e->ack_req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
                return dq_nbx_err("MPI_Test", rc);
            if (done) {
                e->state = 2;
                x->r_open--;
            }
        }
    }
    return 0;
}

/* Apply the completed flush: drop what each receiver took, count, report. Caller is
 * the poller (busy). */
static void dq_nbx_finish(struct shmemi_dataq *q, int in_hook)
{
    struct shmemi_dq_nbx *x = q->nbx;
    struct shmemq_dataq_hot *h = &q->h;
    dq_lock(q);
    for (int i = 0; i < x->ns; i++) {
        struct dq_nbx_send *s = &x->s[i];
        size_t a = s->accepted;
        if (a == 0)
            continue;
        char *base = h->out_at[s->pe];
        memmove(base, base + a, h->out_len[s->pe] - a);
        h->out_len[s->pe] -= a;
        q->stats.bytes += a;
        /* the same figures as the alltoallv exchange: transfers that moved data */
        q->tr.msgs++;
        shmemi_qtraffic_sent(&q->tr, h->npes, s->pe);
    }
    if (x->self_bytes) {
        q->tr.msgs++;
        shmemi_qtraffic_sent(&q->tr, h->npes, q->me);
    }
    shmemi_qtraffic_flushed(&q->tr, q->tr.msgs, q->stats.bytes);
    h->any_from = 0;
    q->stats.flushes++;
    q->stats.bursts++;
    q->last_rc = x->ovf_out ? SHMEM_QUEUE_ERR_OVERFLOW : 0;
    if (in_hook && q->bg) { /* no progress call saw it: the next one reports it */
        q->bg_done = 1;
        q->bg_done_rc = q->last_rc;
    }
    h->phase = SHMEMI_DATAQ_IDLE;
    dq_unlock(q);
}

/* One pass over the flush in flight. Returns 1 when idle, 0 in flight, or an error;
 * *work counts what it did (for the hook). */
static int dq_nbx_pass(struct shmemi_dataq *q, int in_hook, int *work)
{
    struct shmemi_dq_nbx *x = q->nbx;
    int rc, flag;
    if (x->err) {
        rc = x->err;
        x->err = 0;
        q->h.phase = SHMEMI_DATAQ_IDLE;
        return rc;
    }
    if (q->h.phase != SHMEMI_DATAQ_NBX)
        return 1;
    /* sends complete in any order, but all must: test them in turn */
    while (x->sends_done < x->ns) {
        if ((rc = MPI_Test(&x->sreq[x->sends_done], &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return dq_nbx_err("MPI_Test", rc);
        if (!flag)
            break;
        x->sends_done++;
    }
    for (;;) { /* acknowledgements of our messages */
        MPI_Message msg;
        MPI_Status st;
        if ((rc = MPI_Improbe(MPI_ANY_SOURCE, x->tag + 1, q->comm, &flag, &msg, &st)) !=
            MPI_SUCCESS)
            return dq_nbx_err("MPI_Improbe", rc);
        if (!flag)
            break;
        uint64_t taken = 0;
        if ((rc = MPI_Mrecv(&taken, 1, MPI_UINT64_T, &msg, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return dq_nbx_err("MPI_Mrecv", rc);
        if ((rc = dq_nbx_acked(x, st.MPI_SOURCE, taken)) != 0)
            return rc;
        (*work)++;
    }
    for (;;) { /* data for us */
        MPI_Message msg;
        MPI_Status st;
        if ((rc = MPI_Improbe(MPI_ANY_SOURCE, x->tag, q->comm, &flag, &msg, &st)) != MPI_SUCCESS)
            return dq_nbx_err("MPI_Improbe", rc);
        if (!flag)
            break;
        if ((rc = dq_nbx_receive(q, &msg, &st)) != 0)
            return rc;
        (*work)++;
    }
    if ((rc = dq_nbx_test_recvs(q, work)) != 0)
        return rc;
    if (!x->in_coll && x->sends_done == x->ns && x->acks_left == 0) {
        rc = MPI_Iallreduce(&x->ovf_in, &x->ovf_out, 1, MPI_UINT64_T, MPI_MAX, q->comm,
                            &x->coll);
        if (rc != MPI_SUCCESS)
            return dq_nbx_err("MPI_Iallreduce", rc);
        x->in_coll = 1;
        (*work)++;
    }
    if (!x->in_coll)
        return 0;
    if ((rc = MPI_Test(&x->coll, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        return dq_nbx_err("MPI_Test", rc);
    if (!flag)
        return 0;
    /* Every PE entered: each sender had its acknowledgements, which went out after the
     * receives completed, so all that is left are our acknowledgements' sends, already
     * matched by their senders. */
    for (int i = 0; i < x->nr; i++) {
        struct dq_nbx_recv *e = x->r[i];
        if (e->state == 1 && (rc = MPI_Wait(&e->ack_req, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return dq_nbx_err("MPI_Wait", rc);
        if (e->state == 0)
            return dq_nbx_err("a receive outlived the flush", MPI_ERR_OTHER);
        e->state = 2;
    }
    x->r_open = 0;
    dq_nbx_finish(q, in_hook);
    (*work)++;
    return 1;
}

/* One pass at a time: the hook may run inside this queue's own waits, or on another
 * thread of a SHARED queue. A busy pass counts as "in flight". */
static int dq_nbx_poll(struct shmemi_dataq *q, int in_hook, int *work)
{
    struct shmemi_dq_nbx *x = q->nbx;
    if (__atomic_exchange_n(&x->busy, 1, __ATOMIC_ACQUIRE))
        return 0;
    int rc = dq_nbx_pass(q, in_hook, work);
    __atomic_store_n(&x->busy, 0, __ATOMIC_RELEASE);
    return rc;
}

/* While the PE waits in any other library call: a pass over each NBX flush in flight.
 * An EXCLUSIVE queue is polled only on the thread that started its flush (its rooms are
 * that thread's). trylock: a create or destroy on another thread just skips a pass. */
static int dq_nbx_hook(void *arg)
{
    (void)arg;
    if (__atomic_load_n(&nbx_first, __ATOMIC_RELAXED) == NULL ||
        pthread_mutex_trylock(&nbx_lock) != 0)
        return 0;
    int work = 0;
    for (struct shmemi_dataq *q = nbx_first; q; q = q->nbx->next) {
        struct shmemi_dq_nbx *x = q->nbx;
        if (__atomic_load_n(&q->h.phase, __ATOMIC_ACQUIRE) != SHMEMI_DATAQ_NBX || x->err)
            continue;
        if (!q->shared && !pthread_equal(x->owner, pthread_self()))
            continue;
        int rc = dq_nbx_poll(q, 1, &work);
        if (rc < 0)
            x->err = rc; /* in flight until the queue's next flush call reports it */
    }
    pthread_mutex_unlock(&nbx_lock);
    return work;
}

int shmemi_queue_data_nbx_step(struct shmemi_dataq *q, int block)
{
    for (unsigned spins = 0;; spins++) {
        int work = 0;
        int rc = dq_nbx_poll(q, 0, &work);
        if (rc < 0) /* abandoned: the queue is unusable, as in dq_flush.c */
            q->h.phase = SHMEMI_DATAQ_IDLE;
        if (rc != 0 || !block)
            return rc;
        /* other traffic (AMOs, queue handlers) goes on; a pass that did work keeps
         * the core */
        shmemi_wait_pass(work ? 0 : spins);
    }
}
