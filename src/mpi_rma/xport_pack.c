/* xport_pack.c: the packed forms of bursts (xport.h: shmemi_burst_packable,
 * shmemi_burst_uniform, shmemi_burst_disp32 and its _tagged twin, shmemi_burst_narrow),
 * shared by the AM transport's bursts (xport_am_burst.c, xport_am.c) and the comm queue's
 * own AM batches (src/queue/am.c): which bursts qualify, and the narrowing of their
 * displacements. Pure functions of the burst; no transport state. */
#include "xport.h"

#define SHMEMI_UNIFORM(T)                                                                \
    SHMEMI_VECTORIZE static int uniform_##T(const T *opnd, uint32_t n)                   \
    {                                                                                    \
        T diff = 0, first = opnd[0];                                                     \
        for (uint32_t i = 0; i < n; i++)                                                 \
            diff |= opnd[i] ^ first;                                                     \
        return diff == 0;                                                                \
    }
SHMEMI_UNIFORM(uint64_t)
SHMEMI_UNIFORM(uint32_t)
#undef SHMEMI_UNIFORM

int shmemi_burst_narrow_test_off;

/* Every displacement's bits in mask below 4 GiB (mask: all, or a tagged burst's offset) */
SHMEMI_VECTORIZE static int below_4g(const uint64_t *disp, uint32_t n, uint64_t mask)
{
    if (__atomic_load_n(&shmemi_burst_narrow_test_off, __ATOMIC_RELAXED)) /* the agent too */
        return 0;
    if (shmemi.heap_size <= ((size_t)1 << 32) && shmemi.data_size <= ((size_t)1 << 32))
        return 1;
    uint64_t high = 0;
    for (uint32_t i = 0; i < n; i++)
        high |= disp[i] & mask;
    return (high >> 32) == 0;
}

int shmemi_burst_uniform(const unsigned char *opnd, size_t esize, uint32_t n)
{
    if (n == 0 || (esize != 8 && esize != 4))
        return 0;
    return esize == 8 ? uniform_uint64_t((const uint64_t *)(const void *)opnd, n)
                      : uniform_uint32_t((const uint32_t *)(const void *)opnd, n);
}

int shmemi_burst_packable(const uint64_t *disp, const unsigned char *opnd, size_t esize,
                          uint32_t n)
{
    /* operands of a chunk's layout: 8-aligned, after n 8-byte displacements */
    return shmemi_burst_uniform(opnd, esize, n) && below_4g(disp, n, UINT64_MAX);
}

int shmemi_burst_disp32(const uint64_t *disp, uint32_t n)
{
    return below_4g(disp, n, UINT64_MAX);
}

int shmemi_burst_disp32_tagged(const uint64_t *disp, uint32_t n)
{
    return below_4g(disp, n, SHMEMI_XB_OFF_MASK);
}

SHMEMI_VECTORIZE void shmemi_burst_narrow(unsigned char *dst, const unsigned char *src,
                                          uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d;
        memcpy(&d, src + (size_t)i * 8, 8);
        uint32_t d32 = (uint32_t)d;
        memcpy(dst + (size_t)i * 4, &d32, 4);
    }
}
