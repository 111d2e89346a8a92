/* error.c: how the runtime reports misuse and MPI failures. */
#include "shmemi.h"
#include <pthread.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

/* This PE's number for a message: the MPI rank while shmem_init is still running (a
 * failed init must not report "PE -1"), -1 only before MPI is up. */
static int report_pe(void)
{
    if (shmemi.initialized)
        return shmemi.my_pe;
    int up = 0, down = 0, r = -1;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static void vreport(const char *routine, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "[shmemq PE %d] %s: %s\n", report_pe(), routine,
            msg);
    fflush(stderr);
}

void shmemi_let_report_out(void)
{
    /* The launcher forwards each PE's stderr through a pipe and stops forwarding when
     * the abort reaches it: give it a moment, or the last message (the one that says
     * why the job ends) arrives cut or not at all (seen with MPICH 4.2's hydra, and
     * with MPICH 4.0's for a program's last printf before shmem_global_exit). */
    fflush(NULL);
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void abort_job(int code) __attribute__((noreturn));
static void abort_job(int code)
{
    shmemi_let_report_out();
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down)
        MPI_Abort(MPI_COMM_WORLD, code);
    abort();
}

void shmemi_bad_arg(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(routine, fmt, ap);
    va_end(ap);
    if (shmemi.debug)
        abort_job(1);
}

/* 1 the first time a routine name (with a kind of message) comes here on this PE. A few
 * dozen routines at most: a linear scan, on error paths only. */
static int first_time(const char *routine, int kind)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        const char *routine;
        int kind;
    } said[64];
    static int nsaid;
    int seen = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nsaid && !seen; i++)
        seen = said[i].kind == kind && strcmp(said[i].routine, routine) == 0;
    if (!seen && nsaid < 64)
        said[nsaid].routine = routine, said[nsaid++].kind = kind;
    pthread_mutex_unlock(&lock);
    return !seen;
}

/* One line to stderr in one write(2): PEs share the launcher's stderr pipe, and a line
 * written in pieces interleaves with other PEs' lines (seen with Debian 13's MPICH). */
static void say_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say_line(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (len > 0 && line[len - 1] != '\n') /* a cut line still ends its line */
        line[len - 1] = '\n';
    fflush(stderr);
    for (size_t done = 0; done < len;) {
        ssize_t w = write(STDERR_FILENO, line + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
}

void shmemi_say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    say_line("%s", line);
}

enum { SAY_REFUSED, SAY_ONCE };

/* shmemi_refused and shmemi_once: said the first time per routine and kind (every time
 * under SHMEM_DEBUG, where a refusal also ends the job). */
static void say_first(int kind, const char *routine, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void say_first(int kind, const char *routine, const char *fmt, va_list ap)
{
    if (!shmemi.debug && !first_time(routine, kind))
        return;
    char msg[480];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (kind == SAY_ONCE) {
        say_line("[shmemq PE %d] %s: %s%s\n", report_pe(), routine, msg,
                 shmemi.debug ? "" : " (said once per routine; SHMEM_DEBUG=1 says every case)");
    } else if (shmemi.debug) {
        say_line("[shmemq PE %d] %s: %s (SHMEM_DEBUG: ending the job)\n", report_pe(),
                 routine, msg);
        abort_job(1);
    } else {
        say_line("[shmemq PE %d] %s: %s; the routine returned an error and changed nothing "
                 "(said once per routine; SHMEM_DEBUG=1 reports every case and ends the job)\n",
                 report_pe(), routine, msg);
    }
}

void shmemi_once(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_first(SAY_ONCE, routine, fmt, ap);
    va_end(ap);
}

void shmemi_refused(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say_first(SAY_REFUSED, routine, fmt, ap);
    va_end(ap);
}

void shmemi_debug(const char *routine, const char *fmt, ...)
{
    if (!shmemi.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    vreport(routine, fmt, ap);
    va_end(ap);
}

void shmemi_fatal(const char *routine, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(routine, fmt, ap);
    va_end(ap);
    abort_job(1);
}

const char *shmemi_mpi_strerror(int rc, char buf[MPI_MAX_ERROR_STRING])
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

void shmemi_mpi_fail(const char *routine, const char *mpi_call, int mpi_rc)
{
    char err[MPI_MAX_ERROR_STRING];
    shmemi_fatal(routine, "%s failed: %s", mpi_call, shmemi_mpi_strerror(mpi_rc, err));
}

/* Shared slow path of shmemi_target: say exactly what is wrong. */
int shmemi_check_fail(const char *routine, shmem_ctx_t ctx, const void *remote, size_t len, int pe)
{
    const struct shmemq_ctx *c = shmemi_ctx(ctx);
    if (!shmemi.initialized)
        shmemi_bad_arg(routine, "OpenSHMEM is not initialized (call shmem_init first)");
    else if (c == NULL)
        shmemi_bad_arg(routine, "invalid context (SHMEM_CTX_INVALID)");
    else if (shmemi_team_world_pe(c->team, pe) < 0)
        shmemi_bad_arg(routine, "PE %d out of range [0, %d)", pe, c->team->n_pes);
    else if (remote == NULL)
        shmemi_bad_arg(routine, "NULL symmetric address with %zu bytes", len);
    else
        shmemi_bad_arg(routine, "address %p (+%zu bytes) is not symmetric", remote, len);
    return -1;
}
