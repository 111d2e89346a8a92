/* settings.c: every environment variable shmemq reads, with its default, its valid
 * values and its meaning: the one source of truth. shmemq_info prints this table,
 * test/info.sh checks that docs/environment.md and the docs' tables agree with it, and
 * shmem_init checks every variable that is set against it: a value that is not valid
 * gets one line naming the variable, the value and what is used instead (which is what
 * the reading code falls back to: the default). The reading code stays where the value
 * is used; a new variable needs a row here (info.sh fails otherwise). */
#include "shmemi.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <strings.h>

#ifdef SHMEMQ_MPI_IS_OPENMPI
#define COMBINE_DEFAULT "adaptive"
#else
#define COMBINE_DEFAULT "0"
#endif

const shmemi_setting_t shmemi_settings[] = {
    {"SHMEM_SYMMETRIC_SIZE", "256M", SHMEMI_SET_SIZE, 1, 0, NULL,
     "symmetric heap per PE (K/M/G/T suffixes)"},
    {"SMA_SYMMETRIC_SIZE", "", SHMEMI_SET_SIZE, 1, 0, NULL,
     "older name of SHMEM_SYMMETRIC_SIZE (read when that is unset)"},
    {"SHMEM_DEBUG", "0", SHMEMI_SET_BOOL, 0, 0, NULL,
     "report every bad argument with PE and routine, then abort"},
    {"SHMEMQ_WATCHDOG_SECONDS", "10", SHMEMI_SET_SECONDS, 0, 0, NULL,
     "SHMEM_DEBUG: wait in a collective before naming missing PEs and ending the job (0: off)"},
    {"SHMEMQ_NODE_PES", "0", SHMEMI_SET_INT, 0, 1 << 30, NULL,
     "PEs per simulated node (0: the real nodes)"},
    {"SHMEMQ_OFFNODE", "am", SHMEMI_SET_CHOICE, 0, 0, "am mpi",
     "PEs of other nodes: am (messages applied by the target's node) or mpi (MPI RMA)"},
    {"SHMEMQ_ASYNC_PROGRESS", "auto", SHMEMI_SET_CHOICE, 0, 0,
     "auto 1 0 on off yes no true false",
     "node progress agent, one per node: auto (on when the job spans nodes), 1 (also on one node), 0 (off)"},
    {"SHMEMQ_ASYNC_PROGRESS_US", "500", SHMEMI_SET_INT, 0, 1000000, NULL,
     "node agent: longest idle sleep between polls (us; 0: yield, never sleep)"},
    {"SHMEMQ_ASYNC_PROGRESS_CPU", "", SHMEMI_SET_INT, 0, 1 << 30, NULL,
     "PU the node agent binds to"},
    {"SHMEMQ_CTX_WINDOWS", "4", SHMEMI_SET_INT, 0, 1 << 20, NULL,
     "window pairs made at init for contexts"},
    {"SHMEMQ_MALLOC_PRIME", "1", SHMEMI_SET_BOOL, 0, 0, NULL,
     "raise glibc's heap trim threshold at init"},
    {"SHMEMQ_COMM_PATH", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto rma am",
     "comm queues off the node: auto (= rma), rma or am"},
    {"SHMEMQ_COMBINE", COMBINE_DEFAULT, SHMEMI_SET_BOOL, 0, 0, NULL,
     "comm queues: merge ops on one address (0|1; unset: off on MPICH, adaptive on Open MPI's RMA path)"},
    {"SHMEMQ_OWNER_APPLY", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto 1 0 on off yes no true false",
     "comm queues: atomic bursts to node peers applied by the owner (auto: adds; 1: every op; 0: the origin)"},
    {"SHMEMQ_OWNER_WAIT_US", "200", SHMEMI_SET_INT, 0, 1000000, NULL,
     "comm queues: a flush leaves a posted node burst this long to its owner, then applies it (us)"},
    {"SHMEMQ_HOLD_SUMS", "1", SHMEMI_SET_BOOL, 0, 0, NULL,
     "comm queues: adds to a small table on another node summed per word before they leave (0: as pushed)"},
    {"SHMEMQ_PACK", "1", SHMEMI_SET_BOOL, 0, 0, NULL, "comm queues, AM path: packed uniform batches"},
    {"SHMEMQ_EARLY_FLUSH", "1", SHMEMI_SET_BOOL, 0, 0, NULL,
     "comm queues, AM path: flush epoch at half full"},
    {"SHMEMQ_CHUNK_BYTES", "128K", SHMEMI_SET_SIZE, 1024, 64 << 20, NULL,
     "comm queues: bytes per AM burst (1K-64M)"},
    {"SHMEMQ_RMA_CHUNK_BYTES", "64K", SHMEMI_SET_SIZE, 1024, 64 << 20, NULL,
     "comm queues: bytes per RMA burst (1K-64M)"},
    {"SHMEMQ_QUEUE_BUDGET", "64M", SHMEMI_SET_SIZE, 0, 0, NULL,
     "comm queues: chunk memory per queue and op kind it carries (SHMEM_OP_ANY: 7 kinds; 0: no "
     "budget; unset: 8M for node-routed queues)"},
    {"SHMEMQ_QUEUE_ROUTE", "direct", SHMEMI_SET_CHOICE, 0, 0, "direct node",
     "comm queues off the node: a chunk per PE (direct) or per node (node: jobs of many nodes)"},
    {"SHMEMQ_PROGRESS_THREAD", "0", SHMEMI_SET_BOOL, 0, 0, NULL,
     "comm queues: a thread honours timeout_flush"},
    {"SHMEMQ_STATS", "0", SHMEMI_SET_BOOL, 0, 0, NULL, "print queue statistics at destroy"},
    {"SHMEMQ_DATAQ_XFER", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto v c rounds",
     "data queues: exchange mode (a test knob)"},
    {"SHMEMQ_DATAQ_ROUTE", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto direct 2hop 3hop",
     "data queues: direct, or two or three hops through node porters (auto: 2hop from 64 "
     "PEs in nodes)"},
    {"SHMEMQ_DATAQ_EXCHANGE", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto alltoallv nbx",
     "data queues: direct flushes by MPI_Alltoallv or a sparse NBX exchange"},
    {"SHMEMQ_DATAQ_CHUNK", "1G", SHMEMI_SET_SIZE, 1, 2147483647, NULL,
     "data queues: bytes per exchange round (a test knob)"},
    {"SHMEMQ_SESSION_PUTS", "1", SHMEMI_SET_BOOL, 0, 0, NULL,
     "1.6 sessions: batch puts (0: never, as SHMEMQ_SESSION_MAX_PUT=0)"},
    {"SHMEMQ_SESSION_MAX_PUT", "256", SHMEMI_SET_SIZE, 0, 0, NULL,
     "1.6 sessions: largest batched put (bytes)"},
    {"SHMEMQ_SESSION_TIMEOUT", "0.001", SHMEMI_SET_SECONDS, 0, 0, NULL,
     "1.6 sessions: flush timeout (seconds)"},
    {"SHMEMQ_STRIDED_METHOD", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto vector blocks pack",
     "strided RMA method"},
    {"SHMEMQ_STRIDED_TABLE", "", SHMEMI_SET_TEXT, 0, 0, NULL, "tuned strided-method table file"},
    {"SHMEMQ_COLL_MAX_COUNT", "INT_MAX", SHMEMI_SET_SIZE, 1, 2147483647, NULL,
     "largest element count per MPI collective call (a test knob)"},
    {"SHMEMQ_COLL_NODE", "1", SHMEMI_SET_BOOL, 0, 0, NULL,
     "team collectives through the node's shared memory when the team is on one node (0: always MPI)"},
    {"SHMEMQ_COLL_WAIT", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto spin sleep",
     "node collectives: how a PE waits (auto: naps on a futex after a long wait; sleep: after 64 tries; spin: never)"},
    {"SHMEMQ_COLL_HIER", "auto", SHMEMI_SET_CHOICE, 0, 0, "auto 0 1",
     "teams across nodes: hierarchical collectives (auto: where measured faster; 1: always; 0: flat MPI)"},
};
const int shmemi_n_settings = (int)(sizeof shmemi_settings / sizeof shmemi_settings[0]);

/* What init found wrong with each setting ("" when fine or unset), for shmemq_info. */
static char notes[sizeof shmemi_settings / sizeof shmemi_settings[0]][160];

const char *shmemi_setting_note(int i)
{
    return i >= 0 && i < shmemi_n_settings ? notes[i] : "";
}

int shmemi_parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"1", "yes", "on", "true"}, *const no[] = {"0", "no", "off", "false"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0)
            return *out = 1, 0;
        if (strcasecmp(v, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

/* Why v is not a valid value of s (into why), or 0 when it is. */
static int invalid(const shmemi_setting_t *s, const char *v, char *why, size_t n)
{
    switch (s->kind) {
    case SHMEMI_SET_BOOL: {
        int b;
        if (shmemi_parse_bool(v, &b) == 0)
            return 0;
        snprintf(why, n, "is not a boolean (1/0, yes/no, on/off, true/false)");
        return 1;
    }
    case SHMEMI_SET_SIZE: {
        size_t z;
        if (shmemi_parse_size(v, &z) != 0) {
            snprintf(why, n, "is not a size (a number with an optional K, M, G or T suffix)");
            return 1;
        }
        if (z < s->min || (s->max && z > s->max)) {
            if (s->max)
                snprintf(why, n, "is outside [%zu, %zu] bytes", s->min, s->max);
            else
                snprintf(why, n, "is below %zu", s->min);
            return 1;
        }
        return 0;
    }
    case SHMEMI_SET_INT: {
        char *end;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (*v == '\0' || *end != '\0' || errno || x < (long)s->min || x > (long)s->max) {
            snprintf(why, n, "is not an integer in [%zu, %zu]", s->min, s->max);
            return 1;
        }
        return 0;
    }
    case SHMEMI_SET_SECONDS: {
        char *end;
        double x = strtod(v, &end);
        if (*v == '\0' || *end != '\0' || !(x >= 0) || isinf(x)) {
            snprintf(why, n, "is not a number of seconds >= 0");
            return 1;
        }
        return 0;
    }
    case SHMEMI_SET_CHOICE: {
        size_t len = strlen(v);
        for (const char *c = s->choices; *c;) {
            size_t k = strcspn(c, " ");
            if (k == len && strncmp(c, v, k) == 0)
                return 0;
            c += k;
            while (*c == ' ')
                c++;
        }
        snprintf(why, n, "is not one of: %s", s->choices);
        return 1;
    }
    default:
        return 0;
    }
}

void shmemi_settings_check(void)
{
    for (int i = 0; i < shmemi_n_settings; i++) {
        const shmemi_setting_t *s = &shmemi_settings[i];
        const char *v = getenv(s->name);
        char why[96];
        notes[i][0] = '\0';
        if (v == NULL || *v == '\0' || !invalid(s, v, why, sizeof why))
            continue;
        snprintf(notes[i], sizeof notes[i], "%s; using %s", why,
                 s->dflt[0] ? s->dflt : "the unset behaviour");
        /* The environment is normally the same on every PE: PE 0 says it (every PE
         * under SHMEM_DEBUG, for a PE whose environment differs). */
        if (shmemi.my_pe == 0 || shmemi.debug)
            fprintf(stderr, "[shmemq PE %d] shmem_init: %s='%s' %s\n", shmemi.my_pe, s->name,
                    v, notes[i]);
    }
    fflush(stderr);
}
