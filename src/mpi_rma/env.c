/* env.c: environment variables and clocks. */
#include "shmemi.h"
#include <ctype.h>
#include <errno.h>
#include <time.h>

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
