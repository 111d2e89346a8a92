/* env.c: environment variables, clocks and sleeping on a word. */
#define _GNU_SOURCE 1
#include "shmemi.h"
#include <ctype.h>
#include <errno.h>
#include <time.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int shmemi_parse_size(const char *s, size_t *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || *s == '-')
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    if (shift && v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int shmemi_env_bool(const char *name, int dflt)
{
    const char *v = getenv(name);
    int b;
    /* Anything else keeps the default: shmem_init said so (settings.c). */
    if (v == NULL || *v == '\0' || shmemi_parse_bool(v, &b) != 0)
        return dflt;
    return b;
}

double shmemi_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One place for the futex: the node agent's stand-down (a word of its own process) and
 * the node collectives' naps (a word in the node's shared segment) both sleep on one. */
int shmemi_futex_wait(uint32_t *word, uint32_t val, long long ns, int shared)
{
    struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
#ifdef __linux__
    return syscall(SYS_futex, word, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, val, &ts,
                   NULL, 0) == 0;
#else
    /* No futex: a short sleep, so a missed wake costs at most that. */
    (void)shared;
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val) {
        if (ns > 100000)
            ts.tv_sec = 0, ts.tv_nsec = 100000;
        nanosleep(&ts, NULL);
    }
    return 0;
#endif
}

void shmemi_futex_wake(uint32_t *word, int n, int shared)
{
#ifdef __linux__
    (void)syscall(SYS_futex, word, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
#else
    (void)word, (void)n, (void)shared;
#endif
}
