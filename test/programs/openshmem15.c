/* openshmem15.c: a plain OpenSHMEM 1.5 program (no shmemq extensions), built by the installed
 * oshcc and run by oshrun -n 4 in CI. Uses the generic (C11) interfaces, teams, collectives,
 * atomics, point-to-point synchronization and static symmetric data. Exits nonzero on any
 * wrong value. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long counter = 0;
static long flag = 0;
static int ring_value = -1;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int errors = 0;

    /* ring over a static variable with the generic put */
    int mine = me;
    shmem_put(&ring_value, &mine, 1, (me + 1) % npes);
    shmem_barrier_all();
    if (ring_value != (me + npes - 1) % npes)
        errors++;

    /* heap array, get and g */
    long *arr = shmem_malloc(npes * sizeof(long));
    for (int i = 0; i < npes; i++)
        arr[i] = me * 100 + i;
    shmem_barrier_all();
    long got[64];
    shmem_get(got, arr, npes, (me + 1) % npes);
    for (int i = 0; i < npes; i++)
        if (got[i] != ((me + 1) % npes) * 100 + i)
            errors++;
    if (shmem_g(&arr[0], 0) != 0)
        errors++;

    /* atomics: everybody increments PE 0's counter */
    shmem_atomic_inc(&counter, 0);
    shmem_atomic_fetch_add(&counter, 2, 0);
    shmem_barrier_all();
    if (me == 0 && counter != 3L * npes)
        errors++;

    /* point-to-point: PE 0 releases everybody with an atomic set */
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            shmem_atomic_set(&flag, 1L, pe);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, 1L);

    /* a team of the even PEs and a reduction on it */
    shmem_team_t evens;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    if (rc != 0)
        errors++;
    long *src = shmem_malloc(sizeof(long)), *sum = shmem_malloc(sizeof(long));
    *src = me;
    if (evens != SHMEM_TEAM_INVALID) {
        shmem_long_sum_reduce(evens, sum, src, 1);
        long expect = 0;
        for (int pe = 0; pe < npes; pe += 2)
            expect += pe;
        if (*sum != expect)
            errors++;
        shmem_team_destroy(evens);
    }

    /* broadcast on the world team */
    long *b = shmem_malloc(4 * sizeof(long));
    if (me == npes - 1)
        for (int i = 0; i < 4; i++)
            b[i] = 7 * i;
    shmem_long_broadcast(SHMEM_TEAM_WORLD, b, b, 4, npes - 1);
    for (int i = 0; i < 4; i++)
        if (b[i] != 7 * i)
            errors++;

    shmem_free(b);
    shmem_free(sum);
    shmem_free(src);
    shmem_free(arr);
    printf("PE %d of %d: %s\n", me, npes, errors ? "WRONG" : "ok");
    shmem_finalize();
    return errors ? 1 : 0;
}
