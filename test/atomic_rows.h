// atomic_rows.h: six rows of W words, one per queued atomic op, that every PE pushes to
// every PE and then checks exactly (test_offnode_queue_amo.cc, test_commq_route.cc).
// Rows (row-major, row r at w + r * W): 0 adds of 1, 1 adds of (i + origin + 1), 2 XORs of
// the origin's bit (an odd number of times), 3 ORs of it, 4 ANDs of its complement (from
// all ones), 5 SETs of origin + 1 (any origin's value may win).
#ifndef SHMEMQ_TEST_ATOMIC_ROWS_H
#define SHMEMQ_TEST_ATOMIC_ROWS_H

#include <shmem.h>
#include <shmemx.h>
#include <vector>

static const shmem_op_type_t kRowOps[6] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_ATOMIC_ADD,
                                           SHMEM_OP_ATOMIC_XOR, SHMEM_OP_ATOMIC_OR,
                                           SHMEM_OP_ATOMIC_AND, SHMEM_OP_ATOMIC_SET};

// The starting values: zeros, and all ones for the AND row.
template <typename T> void rows_reset(T *w, int W)
{
    for (int r = 0; r < 6; r++)
        for (int i = 0; i < W; i++)
            w[r * W + i] = r == 4 ? (T)~(T)0 : (T)0;
}

// What PE me pushes into row `row`, word by word.
template <typename T> std::vector<T> row_operands(int row, int W, int me)
{
    const T bit = (T)1 << (me % 30);
    std::vector<T> v((size_t)W);
    for (int i = 0; i < W; i++)
        v[(size_t)i] = row == 0   ? (T)1
                       : row == 1 ? (T)(i + me + 1)
                       : row == 4 ? (T)~bit
                       : row == 5 ? (T)(me + 1)
                                  : bit;
    return v;
}

// Words that differ from what n origins pushing the add rows R times each leave.
template <typename T> int rows_wrong(const T *w, int W, int n, int R)
{
    T all_bits = 0, xor_bits = 0;
    for (int p = 0; p < n; p++) {
        all_bits |= (T)1 << (p % 30);
        xor_bits ^= (T)1 << (p % 30);
    }
    int wrong = 0;
    for (int i = 0; i < W; i++) {
        T sum1 = 0;
        for (int p = 0; p < n; p++)
            sum1 = (T)(sum1 + (T)(i + p + 1));
        wrong += w[i] != (T)(R * n);
        wrong += w[W + i] != (T)(sum1 * R);
        wrong += w[2 * W + i] != xor_bits;
        wrong += w[3 * W + i] != all_bits;
        wrong += w[4 * W + i] != (T)~all_bits;
        wrong += !(w[5 * W + i] >= (T)1 && w[5 * W + i] <= (T)n);
    }
    return wrong;
}

#endif
