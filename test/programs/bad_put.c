/* bad_put.c: a put to a PE that does not exist. Built and run by ci/sanitize.sh:
 * without SHMEM_DEBUG the library must report "[shmemq PE n] shmem_long_put: ..." and
 * carry on (exit 0, nothing written); with SHMEM_DEBUG=1 it must report the same and
 * abort the job (nonzero exit). With an argument PREFIX each PE writes its stderr to
 * PREFIX.<pe>: the launcher may drop an aborting process's forwarded output. */
#include <shmem.h>
#include <stdio.h>

static long target = 0;

int main(int argc, char **argv)
{
    shmem_init();
    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", argv[1], shmem_my_pe());
        if (freopen(path, "w", stderr) == NULL)
            return 2;
        setvbuf(stderr, NULL, _IONBF, 0);
    }
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
