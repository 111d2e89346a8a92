/* halo2d.c: a 2-D halo exchange with block-strided puts.
 *
 * A global NX x NY grid of doubles is split into column strips, one per PE (1-D
 * decomposition along x). Each PE stores its strip row-major with one halo column on
 * each side: local[y][0] and local[y][w+1] are halos, local[y][1..w] are owned. A column
 * of a row-major array is strided (one element every w+2), so each PE sends its first
 * and last owned columns to its neighbours with shmem_double_iput (one element per row)
 * and, for a halo of two columns, shmem_double_ibput (two elements per block). The grid
 * is periodic in x. After the exchange every halo is checked against the neighbour's
 * owned values, and a few Jacobi sweeps are compared against a serial computation.
 *
 *   mpiexec -n 4 examples/halo2d [NX NY]
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define H 2 /* halo width (columns per side) */

static double init_value(int gx, int gy)
{
    return (double)(gx * 1000 + gy) + 0.5;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int nx = argc > 1 ? atoi(argv[1]) : 64, ny = argc > 2 ? atoi(argv[2]) : 48;
    if (nx < npes * H || ny < 1) {
        if (me == 0)
            fprintf(stderr, "grid %dx%d too small for %d PEs\n", nx, ny, npes);
        shmem_finalize();
        return 1;
    }
    /* strip widths may differ by one; the local row pitch is the same on every PE
     * because the array must be symmetric */
    int base = nx / npes, extra = nx % npes;
    int w = base + (me < extra), x0 = me * base + (me < extra ? me : extra);
    int wmax = base + (extra > 0);
    ptrdiff_t pitch = wmax + 2 * H;
    double *grid = shmem_calloc((size_t)ny * (size_t)pitch, sizeof(double));
    double *next = shmem_calloc((size_t)ny * (size_t)pitch, sizeof(double));
    /* the width of every PE is needed to address its right halo */
    int *widths = shmem_malloc((size_t)npes * sizeof(int));
    if (!grid || !next || !widths) {
        fprintf(stderr, "PE %d: out of symmetric memory\n", me);
        shmem_global_exit(1);
    }
    for (int p = 0; p < npes; p++)
        widths[p] = base + (p < extra);
#define AT(a, y, x) ((a)[(size_t)(y) * (size_t)pitch + (size_t)(x)])
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < w; x++)
            AT(grid, y, H + x) = init_value(x0 + x, y);
    shmem_barrier_all();

    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
    int errors = 0;
    const int sweeps = 3;
    double *cur = grid, *nxt = next;
    for (int it = 0; it <= sweeps; it++) {
        /* exchange: my first H owned columns go to the left PE's right halo, my last H
         * to the right PE's left halo. Column c of a row-major strip is ny elements
         * pitch apart: iput for a 1-wide halo, ibput with blocks of H for the full halo. */
        if (it % 2 == 0) {
            for (int c = 0; c < H; c++) {
                shmem_double_iput(&AT(cur, 0, H + widths[left] + c), &AT(cur, 0, H + c), pitch,
                                  pitch, (size_t)ny, left);
                shmem_double_iput(&AT(cur, 0, c), &AT(cur, 0, H + w - H + c), pitch, pitch,
                                  (size_t)ny, right);
            }
        } else {
            shmem_double_ibput(&AT(cur, 0, H + widths[left]), &AT(cur, 0, H), pitch, pitch, H,
                               (size_t)ny, left);
            shmem_double_ibput(&AT(cur, 0, 0), &AT(cur, 0, H + w - H), pitch, pitch, H,
                               (size_t)ny, right);
        }
        shmem_barrier_all();
        if (it == 0) { /* check every halo value against the neighbour's owned value */
            int lx0 = left * base + (left < extra ? left : extra);
            int rx0 = right * base + (right < extra ? right : extra);
            for (int y = 0; y < ny; y++)
                for (int c = 0; c < H; c++) {
                    double l = AT(cur, y, c), r = AT(cur, y, H + w + c);
                    if (l != init_value(lx0 + widths[left] - H + c, y) ||
                        r != init_value(rx0 + c, y))
                        errors++;
                }
        }
        if (it == sweeps)
            break;
        /* one Jacobi sweep in x only (the exchange covers x; y is local, clamped) */
        for (int y = 0; y < ny; y++)
            for (int x = H; x < H + w; x++)
                AT(nxt, y, x) = 0.25 * (AT(cur, y, x - 1) + AT(cur, y, x + 1)) +
                                0.5 * AT(cur, y, x);
        double *t = cur;
        cur = nxt;
        nxt = t;
        shmem_barrier_all(); /* nobody writes halos of cur before everyone has read them */
    }

    /* serial reference of the same sweeps on the whole periodic grid */
    double *ref = malloc((size_t)nx * ny * sizeof(double)), *tmp = malloc((size_t)nx * ny * sizeof(double));
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++)
            ref[(size_t)y * nx + x] = init_value(x, y);
    for (int it = 0; it < sweeps; it++) {
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++)
                tmp[(size_t)y * nx + x] = 0.25 * (ref[(size_t)y * nx + (x + nx - 1) % nx] +
                                                  ref[(size_t)y * nx + (x + 1) % nx]) +
                                          0.5 * ref[(size_t)y * nx + x];
        double *t = ref;
        ref = tmp;
        tmp = t;
    }
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < w; x++)
            if (AT(cur, y, H + x) - ref[(size_t)y * nx + x0 + x] > 1e-9 ||
                ref[(size_t)y * nx + x0 + x] - AT(cur, y, H + x) > 1e-9)
                errors++;
    free(ref);
    free(tmp);

    /* every PE reports its error count into PE 0's table */
    int *errs = shmem_calloc((size_t)npes, sizeof(int));
    shmem_barrier_all();
    shmem_int_put(&errs[me], &errors, 1, 0);
    shmem_barrier_all();
    int total = 0;
    for (int p = 0; p < npes; p++)
        total += errs[p];
    if (me == 0)
        printf("halo2d: %dx%d grid on %d PEs, halo %d columns, %d sweeps: %s (%d errors)\n", nx,
               ny, npes, H, sweeps, total ? "FAILED" : "verified", total);
    int rc = me == 0 && total != 0;
    shmem_free(errs);
    shmem_free(widths);
    shmem_free(next);
    shmem_free(grid);
    shmem_finalize();
    return rc;
}
