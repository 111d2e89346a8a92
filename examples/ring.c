/* ring.c: each PE puts its number into its right neighbour's static variable, then
 * checks what its left neighbour sent. */
#include <shmem.h>
#include <stdio.h>

static int received = -1;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_int_p(&received, me, (me + 1) % n);
    shmem_barrier_all();
    int expect = (me + n - 1) % n;
    int ok = received == expect;
    printf("PE %d of %d: received %d from PE %d: %s\n", me, n, received, expect,
           ok ? "ok" : "WRONG");
    shmem_finalize();
    return ok ? 0 : 1;
}
