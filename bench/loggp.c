/* bench/loggp.c: rough LogGP parameters of this machine's MPI between two ranks, for
 * bench/simulate's time model (docs/scaling.md, "Time model"). Plain MPI, 2 ranks:
 *   mpiexec -n 2 bench/loggp [-i iterations]
 * Measured (medians of 5 batches, rank 0's clock):
 * (-i at most 131072: each pending receive of a stream has its own 8 bytes.)
 *   o   per-message send overhead: one MPI_Send of 8 B (eager: returns once buffered);
 *   g   gap: time per message of a stream of 8-B MPI_Isend + one MPI_Waitall;
 *   L   one-way 8-B latency from the ping-pong, minus 2 o (the LogP reading of a round
 *       trip as 2 (L + 2 o));
 *   G   per byte: (one-way 1 MiB - one-way 8 B) / (1 MiB - 8).
 * Prints one line per parameter, then the -N/-O argument for bench/simulate. */
#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One-way time of a ping-pong of `bytes`, per iteration. */
static double pingpong(int me, char *buf, int bytes, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (me == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / (2.0 * iters);
}

/* Send overhead (stream = 0: blocking eager sends, each timed alone) or gap (stream = 1:
 * iters Isends then one Waitall), per message, at rank 0; rank 1 receives them all. */
static double sends(int me, char *buf, int iters, int stream, MPI_Request *rq, MPI_Status *st)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = 0;
    if (me == 0) {
        if (stream) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                MPI_Isend(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &rq[i]);
            MPI_Waitall(iters, rq, st); /* statuses, not _IGNORE: GCC misreads that constant */
            t = (MPI_Wtime() - t0) / iters;
        } else {
            for (int i = 0; i < iters; i++) {
                double t0 = MPI_Wtime();
                MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                t += MPI_Wtime() - t0;
            }
            t /= iters;
        }
    } else {
        for (int i = 0; i < iters; i++)
            MPI_Irecv(buf + 8 * (size_t)i, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[i]);
        MPI_Waitall(iters, rq, st); /* statuses, not _IGNORE: GCC misreads that constant */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    int iters = 2000, opt;
    while ((opt = getopt(argc, argv, "i:h")) != -1) {
        if (opt == 'i' && atoi(optarg) > 0 && atoi(optarg) <= (1 << 17)) {
            iters = atoi(optarg);
        } else {
            fprintf(stderr, "usage: mpiexec -n 2 loggp [-i iterations]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (me == 0)
            fprintf(stderr, "loggp: run with exactly 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    const int big = 1 << 20;
    char *buf = calloc(1, big);
    MPI_Request *rq = malloc((size_t)iters * sizeof *rq);
    MPI_Status *st = malloc((size_t)iters * sizeof *st);
    if (!buf || !rq || !st)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double s[4][5];
    pingpong(me, buf, 8, iters / 10 + 1); /* warm up */
    for (int r = 0; r < 5; r++) {
        s[0][r] = sends(me, buf, iters, 0, rq, st);
        s[1][r] = sends(me, buf, iters, 1, rq, st);
        s[2][r] = pingpong(me, buf, 8, iters);
        s[3][r] = pingpong(me, buf, big, iters / 100 + 5);
    }
    if (me == 0) {
        for (int k = 0; k < 4; k++)
            qsort(s[k], 5, sizeof(double), cmpd);
        double o = s[0][2], g = s[1][2], one = s[2][2], L = one - 2 * o;
        double G = (s[3][2] - one) / (double)(big - 8);
        if (L < 0)
            L = 0;
        printf("loggp: o %.3f us (8-B MPI_Send)\n", o * 1e6);
        printf("loggp: g %.3f us (8-B Isend stream, per message)\n", g * 1e6);
        printf("loggp: L %.3f us (one-way 8 B %.3f us - 2 o)\n", L * 1e6, one * 1e6);
        printf("loggp: G %.4f ns/B (%.2f GB/s, 1 MiB ping-pong)\n", G * 1e9, 1e-9 / G);
        printf("loggp: bench/simulate argument: %.3f,%.3f,%.3f,%.2f\n", L * 1e6, o * 1e6,
               g * 1e6, 1e-9 / G);
    }
    free(buf);
    free(rq);
    free(st);
    MPI_Finalize();
    return 0;
}
