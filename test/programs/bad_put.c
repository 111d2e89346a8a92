/* bad_put.c: a put to a PE that does not exist. Built and run by ci/sanitize.sh:
 * without SHMEM_DEBUG the library must report "[shmemq PE n] shmem_long_put: ..." and
 * carry on (exit 0, nothing written); with SHMEM_DEBUG=1 it must report the same and
 * abort the job (nonzero exit). */
#include <shmem.h>
#include <stdio.h>

static long target = 0;

int main(void)
{
    shmem_init();
    long value = 42;
    shmem_long_put(&target, &value, 1, shmem_n_pes() + 3);
    shmem_barrier_all();
    int bad = target != 0;
    if (bad)
        printf("PE %d: the bad put wrote %ld\n", shmem_my_pe(), target);
    printf("PE %d: bad_put returned\n", shmem_my_pe());
    shmem_finalize();
    return bad;
}
