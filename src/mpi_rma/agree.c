/* agree.c: collective agreement on bad input, and the SHMEM_DEBUG watchdog.
 *
 * Agreement: one MPI_Iallreduce(MAX) over the collective's communicator of
 * {first bad PE, v, ~v for each value that must be equal}; MAX of v and of ~v give the
 * largest and the smallest v at once. It runs before any data moves, so when one PE
 * rejects its arguments every PE returns the error and the data collective never
 * starts anywhere.
 *
 * Watchdog (SHMEM_DEBUG only): a PE waiting in a collective step (shmemi_agree_wait)
 * gives up after SHMEMQ_WATCHDOG_SECONDS. To name the members that have not arrived
 * it asks each of them, with a point-to-point message on shmemi.comm (which carries
 * no other point-to-point traffic), what it is waiting in; a progress hook, registered
 * only under SHMEM_DEBUG, answers on every PE. A member that is waiting in a
 * collective over the same PEs has arrived; any other answer, or none within a
 * second (the member computes, or blocks inside MPI), means it has not. Then the
 * report, and shmem_global_exit(1). Nothing is sent unless a watchdog fires. */
#include "agree.h"
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>

/* Above the tags MPI_Comm_create_group uses on shmemi.comm (coll_legacy.c: < 32000);
 * the MPI standard guarantees tags up to 32767. */
#define WD_TAG_QUERY 32500
#define WD_TAG_REPLY 32501
#define WD_ROUTINE_LEN 56

uint64_t shmemi_agree_kind(const char *routine)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)routine; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

/* ---- what this PE is waiting in (for the watchdog's questions) ---- */

static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const char *routine; /* NULL: not waiting in a collective step */
    MPI_Comm comm;
} waiting;

struct wd_reply {
    int32_t waiting; /* 1: in a collective step, over the PEs hashed in sig */
    int32_t n;
    uint64_t sig;
    char routine[WD_ROUTINE_LEN];
};

/* The world PEs of comm: a malloc'ed array of *n, or NULL. */
static int *world_pes(MPI_Comm comm, int *n)
{
    MPI_Group g, w;
    MPI_Comm_size(comm, n);
    int *in = malloc(sizeof(int) * 2 * (size_t)*n);
    if (in == NULL)
        return NULL;
    for (int i = 0; i < *n; i++)
        in[i] = i;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(shmemi.comm, &w);
    MPI_Group_translate_ranks(g, *n, in, w, in + *n);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    memmove(in, in + *n, sizeof(int) * (size_t)*n);
    return in;
}

static uint64_t pes_sig(const int *pes, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)(unsigned)pes[i]) * 1099511628211ull;
    return h;
}

static int answer_queries(void *arg)
{
    (void)arg;
    if (!shmemi.initialized)
        return 0;
    for (int served = 0;; served++) {
        int flag = 0;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, WD_TAG_QUERY, shmemi.comm, &flag, &st) != MPI_SUCCESS ||
            !flag)
            return served;
        int dummy;
        MPI_Recv(&dummy, 1, MPI_INT, st.MPI_SOURCE, WD_TAG_QUERY, shmemi.comm,
                 MPI_STATUS_IGNORE);
        struct wd_reply r;
        memset(&r, 0, sizeof r);
        pthread_mutex_lock(&wait_lock);
        if (waiting.routine) {
            int n, *pes = world_pes(waiting.comm, &n);
            r.waiting = 1;
            r.n = n;
            r.sig = pes ? pes_sig(pes, n) : 0;
            snprintf(r.routine, sizeof r.routine, "%s", waiting.routine);
            free(pes);
        }
        pthread_mutex_unlock(&wait_lock);
        /* A few bytes: sent eagerly, returns at once. */
        MPI_Send(&r, (int)sizeof r, MPI_BYTE, st.MPI_SOURCE, WD_TAG_REPLY, shmemi.comm);
    }
}

static pthread_once_t responder_once = PTHREAD_ONCE_INIT;
static void responder_register(void)
{
    if (shmemi_progress_register(answer_queries, NULL) != 0)
        shmemi_debug("shmemq watchdog", "no progress hook left: peers' watchdogs get no answer");
}

static double watchdog_seconds(void)
{
    static double secs = -1;
    if (secs < 0) {
        double v = 10;
        const char *s = getenv("SHMEMQ_WATCHDOG_SECONDS");
        if (s && *s) {
            char *end;
            double x = strtod(s, &end);
            if (*end == '\0' && x >= 0)
                v = x;
            else
                shmemi_debug("shmemq watchdog", "SHMEMQ_WATCHDOG_SECONDS=%s is not a number of "
                             "seconds; using 10", s);
        }
        secs = v;
    }
    return secs;
}

/* The wait was too long: find who is missing, say so, end the job. */
static void watchdog_fire(MPI_Comm comm, const char *routine, double waited)
    __attribute__((noreturn));
static void watchdog_fire(MPI_Comm comm, const char *routine, double waited)
{
    int n = 0, me = 0;
    MPI_Comm_rank(comm, &me);
    int *pes = world_pes(comm, &n);
    if (pes == NULL)
        shmemi_fatal(routine, "watchdog: waited %.0f s for the other PEs; out of memory", waited);
    uint64_t sig = pes_sig(pes, n);
    struct wd_reply *rep = calloc((size_t)n, sizeof *rep);
    MPI_Request *rq = calloc(2 * (size_t)n, sizeof *rq);
    int *answered = calloc((size_t)n, sizeof(int));
    if (!rep || !rq || !answered)
        shmemi_fatal(routine, "watchdog: waited %.0f s for the other PEs; out of memory", waited);
    static int dummy;
    for (int i = 0; i < n; i++) {
        rq[i] = rq[n + i] = MPI_REQUEST_NULL;
        if (i == me)
            continue;
        MPI_Irecv(&rep[i], (int)sizeof rep[i], MPI_BYTE, pes[i], WD_TAG_REPLY, shmemi.comm,
                  &rq[i]);
        MPI_Isend(&dummy, 1, MPI_INT, pes[i], WD_TAG_QUERY, shmemi.comm, &rq[n + i]);
    }
    /* Answer the others meanwhile: they may be firing too. */
    double t0 = MPI_Wtime();
    int left = n - 1;
    while (left > 0 && MPI_Wtime() - t0 < 1.0) {
        for (int i = 0; i < n; i++) {
            int done = 0;
            if (i != me && !answered[i] &&
                MPI_Test(&rq[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
                answered[i] = 1, left--;
        }
        answer_queries(NULL);
        sched_yield();
    }
    char list[1024];
    size_t len = 0;
    int missing = 0;
    list[0] = '\0';
    for (int i = 0; i < n && len < sizeof list - 128; i++) {
        if (i == me || (answered[i] && rep[i].waiting && rep[i].sig == sig))
            continue;
        missing++;
        const char *what = !answered[i]       ? "no answer: computing, or blocked inside MPI"
                           : rep[i].waiting   ? "waiting in a collective over other PEs"
                                              : "not in a collective step";
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d (world PE %d: %s%s%s)",
                                missing > 1 ? ", " : "", i, pes[i], what,
                                answered[i] && rep[i].waiting ? ", " : "",
                                answered[i] && rep[i].waiting ? rep[i].routine : "");
    }
    char team[256];
    size_t tl = (size_t)snprintf(team, sizeof team, "%d PEs, world PEs", n);
    for (int i = 0; i < n && tl < sizeof team - 16; i++)
        tl += (size_t)snprintf(team + tl, sizeof team - tl, "%s%d", i ? "," : " ", pes[i]);
    if (tl >= sizeof team - 16)
        snprintf(team + sizeof team - 16, 16, ",...");
    fprintf(stderr,
            "[shmemq PE %d] %s: watchdog: waited %.1f s for the other PEs of the team (%s); "
            "team PEs that have not arrived: %s. Ending the job with shmem_global_exit(1) "
            "(SHMEM_DEBUG; SHMEMQ_WATCHDOG_SECONDS sets the wait, 0 turns the watchdog off).\n",
            shmemi.my_pe, routine, waited, team,
            missing ? list : "none (they arrived while this PE was asking)");
    shmemi_let_report_out();
    shmem_global_exit(1);
    abort(); /* shmem_global_exit does not return */
}

int shmemi_agree_wait(MPI_Request *req, MPI_Comm comm, const char *routine)
{
    double limit;
    if (SHMEMI_LIKELY(!shmemi.debug) || (limit = watchdog_seconds()) <= 0)
        return shmemi_wait_request(req);
    pthread_once(&responder_once, responder_register);
    pthread_mutex_lock(&wait_lock);
    const char *prev_routine = waiting.routine;
    MPI_Comm prev_comm = waiting.comm;
    waiting.routine = routine;
    waiting.comm = comm;
    pthread_mutex_unlock(&wait_lock);
    double t0 = MPI_Wtime();
    int rc;
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            break;
        shmemi_wait_pass(spins);
        if ((spins & 255) == 0) {
            double waited = MPI_Wtime() - t0;
            if (waited > limit)
                watchdog_fire(comm, routine, waited);
        }
    }
    pthread_mutex_lock(&wait_lock);
    waiting.routine = prev_routine;
    waiting.comm = prev_comm;
    pthread_mutex_unlock(&wait_lock);
    return rc;
}

int shmemi_agree_barrier(MPI_Comm comm, const char *routine)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(comm, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return shmemi_agree_wait(&req, comm, routine);
}

void shmemi_agree_orphan(const char *routine, const char *why)
{
    fprintf(stderr,
            "[shmemq PE %d] %s: %s: this PE cannot take part in the collective, so the other "
            "PEs of its team may wait for it%s\n",
            shmemi.initialized ? shmemi.my_pe : -1, routine, why,
            shmemi.debug ? " (their SHMEM_DEBUG watchdog ends the job)" : "");
    fflush(stderr);
    if (shmemi.debug && shmemi.initialized)
        pthread_once(&responder_once, responder_register);
}

int shmemi_agree(const char *routine, MPI_Comm comm, int me, int n, int loud, int bad,
                 const uint64_t *vals, int nvals)
{
    return shmemi_agree_extra(routine, comm, me, n, loud, bad, vals, nvals, NULL, NULL, 0);
}

int shmemi_agree_exchange(const char *routine, MPI_Comm comm, int n, int first_bad,
                          const uint64_t *vmax, const uint64_t *vmin, int nvals,
                          const uint64_t *extra_in, uint64_t *extra_out, int nextra,
                          shmemi_agree_verdict_t *verdict)
{
    /* One shape for every agreement, whatever nvals and nextra: PEs that called
     * different routines must still make matching MPI calls (same count), so that the
     * kind comparison, not MPI, tells them apart. Unused values are 0, unused extra
     * words 0. */
    enum { HEAD = 1 + 2 * SHMEMI_AGREE_MAXV, LEN = HEAD + SHMEMI_AGREE_MAX_EXTRA };
    uint64_t in[LEN] = {0}, out[LEN];
    in[0] = first_bad >= 0 ? (uint64_t)(n - first_bad) : 0; /* MAX: n - (lowest bad PE) */
    for (int i = 0; i < SHMEMI_AGREE_MAXV; i++) {
        in[1 + 2 * i] = i < nvals ? vmax[i] : 0;
        in[2 + 2 * i] = ~(i < nvals ? vmin[i] : 0);
    }
    if (nextra)
        memcpy(in + HEAD, extra_in, sizeof(uint64_t) * (size_t)nextra);
    MPI_Request req;
    int rc = MPI_Iallreduce(in, out, LEN, MPI_UINT64_T, MPI_MAX, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = shmemi_agree_wait(&req, comm, routine);
    if (rc != MPI_SUCCESS) {
        shmemi_debug(routine, "MPI_Iallreduce (argument agreement) failed (code %d)", rc);
        return -1;
    }
    verdict->first_bad = out[0] ? n - (int)out[0] : -1;
    verdict->differs = -1;
    for (int i = 0; i < SHMEMI_AGREE_MAXV && verdict->differs < 0; i++)
        if (out[1 + 2 * i] != ~out[2 + 2 * i])
            verdict->differs = i;
    if (nextra && verdict->first_bad < 0 && verdict->differs < 0)
        memcpy(extra_out, out + HEAD, sizeof(uint64_t) * (size_t)nextra);
    return 0;
}

void shmemi_agree_report(const char *routine, int me, int loud, int bad,
                         const shmemi_agree_verdict_t *v)
{
    if (bad)
        return; /* this PE reported its own reason already */
    static const char *const what[SHMEMI_AGREE_MAXV] = {
        "the PEs called different collectives (or different types)",
        "the PEs passed different sizes", "the PEs passed different roots"};
    char msg[160];
    if (v->differs >= 0)
        snprintf(msg, sizeof msg, "%s: nothing was done", what[v->differs]);
    else
        snprintf(msg, sizeof msg,
                 "team PE %d rejected its arguments, so every PE returns without moving data",
                 v->first_bad);
    if (loud)
        shmemi_bad_arg(routine, "%s", msg);
    else if (v->differs >= 0 && me == 0) /* every PE knows; one says it */
        shmemi_refused(routine, "%s", msg);
    else /* the PE that rejected its arguments said why */
        shmemi_debug(routine, "%s", msg);
}

int shmemi_agree_extra(const char *routine, MPI_Comm comm, int me, int n, int loud, int bad,
                       const uint64_t *vals, int nvals, const uint64_t *extra_in,
                       uint64_t *extra_out, int nextra)
{
    shmemi_agree_verdict_t v;
    if (shmemi_agree_exchange(routine, comm, n, bad ? me : -1, vals, vals, nvals, extra_in,
                              extra_out, nextra, &v))
        return -1;
    if (v.first_bad < 0 && v.differs < 0)
        return 0;
    shmemi_agree_report(routine, me, loud, bad, &v);
    return -1;
}
