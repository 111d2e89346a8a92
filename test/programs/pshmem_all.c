/* pshmem_all.c: takes the address of every pshmem_ twin (and pstart_pes, p_my_pe, ...)
 * that <pshmem.h> declares: the same list (<shmemq/pshmem_twins.h>) with another
 * PSHMEMQ_TWIN. Built with -Werror=implicit-function-declaration (robust.mk);
 * test/robust_pshmem.sh then checks with nm that this program references every twin the
 * library exports, so a twin missing from the header's list fails.
 * Run without MPI: it only prints how many routines it referenced. */
#include <pshmem.h>
#include <stdio.h>

typedef void (*fn_t)(void);

static fn_t const twins[] = {
#define PSHMEMQ_TWIN(f) (fn_t)&p##f,
#include <shmemq/pshmem_twins.h>
#undef PSHMEMQ_TWIN
};

int main(void)
{
    size_t n = sizeof twins / sizeof twins[0], null = 0;
    for (size_t i = 0; i < n; i++)
        null += twins[i] == NULL;
    /* and a few calls, which need no shmem_init */
    int major = 0, minor = 0;
    pshmem_info_get_version(&major, &minor);
    int pe = pshmem_my_pe(); /* -1 before shmem_init */
    printf("pshmem_all: %zu profiling twins referenced, %zu NULL; version %d.%d, my_pe %d\n", n,
           null, major, minor, pe);
    return null != 0 || major != SHMEM_MAJOR_VERSION || pe != -1;
}
