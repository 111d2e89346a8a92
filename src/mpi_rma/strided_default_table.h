/* Built-in strided method tables: rules in the SHMEMQ_STRIDED_TABLE format
 * (docs/strided.md), later rules override earlier ones. The best method depends on how
 * the MPI library handles derived datatypes in RMA, so there is one table per library,
 * picked at run time from MPI_Get_library_version. Both are the output of
 * `bench/strided -p N -w FILE` (2 PEs on one 2-core node; docs/strided.md has the numbers
 * and commands), pasted unchanged: per bench cell (block size class x stride class x
 * block-count range), the method that was within 3% of the best in the most passes. */

/* MPICH 4.0.2 (ch4:ucx), 5 passes (a later 8-pass run wrote the same table):
 *  - target-side datatypes cost a fixed ~40-70 us per call (active messages through the
 *    target's progress engine), so a handful of blocks, or blocks >= 2 KiB, go fastest
 *    as one contiguous MPI call per block;
 *  - many small blocks go fastest packed locally into one call with a target hvector;
 *  - gets of thousands of 8-byte blocks at large strides: MPI's datatype engine on both
 *    sides ties with packing and wins more often. */
static const char default_rules_mpich[] =
    "*  *  *  *  vector\n"
    "put 1-8        1-*    1-2048     pack\n"
    "put 1-8        1-*    2049-*     pack\n"
    "put 9-32       1-*    1-512      pack\n"
    "put 9-32       1-*    513-*      pack\n"
    "put 33-128     1-*    1-128      pack\n"
    "put 33-128     1-*    129-*      pack\n"
    "put 129-512    1-*    1-32       blocks\n"
    "put 129-512    1-*    33-*       pack\n"
    "put 513-2048   1-*    1-8        blocks\n"
    "put 513-2048   1-*    9-*        blocks\n"
    "put 2049-8192  1-*    1-*        blocks\n"
    "put 8193-*     1-*    1-*        blocks\n"
    "get 1-8        1-*    1-2048     pack\n"
    "get 1-8        1-16   2049-*     pack\n"
    "get 1-8        17-*   2049-*     vector\n"
    "get 9-32       1-*    1-512      pack\n"
    "get 9-32       1-*    513-*      pack\n"
    "get 33-128     1-*    1-128      pack\n"
    "get 33-128     1-*    129-*      pack\n"
    "get 129-512    1-*    1-32       blocks\n"
    "get 129-512    1-*    33-*       pack\n"
    "get 513-2048   1-*    1-8        blocks\n"
    "get 513-2048   1-*    9-*        blocks\n"
    "get 2049-8192  1-*    1-*        blocks\n"
    "get 8193-*     1-*    1-*        blocks\n";

/* Open MPI 4.1.4 (osc rdma/sm), 8 passes: datatypes on both sides are cheap, one call
 * with hvectors wins nearly everywhere; contiguous calls per block win for a few blocks
 * of 513..2048 B and for puts of blocks above 8 KiB; for 32-byte blocks at strides of
 * 32x-64x packing and vector are within a few % (memory-bound spans of up to 4 MiB) and
 * the cells went to whichever was within 3% of the best in more passes. */
static const char default_rules_ompi[] =
    "*  *  *  *  vector\n"
    "put 1-8        1-*    1-2048     vector\n"
    "put 1-8        1-*    2049-*     vector\n"
    "put 9-32       1-16   1-512      vector\n"
    "put 9-32       17-32  1-512      pack\n"
    "put 9-32       33-*   1-512      vector\n"
    "put 9-32       1-*    513-*      vector\n"
    "put 33-128     1-*    1-128      vector\n"
    "put 33-128     1-*    129-*      vector\n"
    "put 129-512    1-*    1-32       vector\n"
    "put 129-512    1-*    33-*       vector\n"
    "put 513-2048   1-*    1-8        blocks\n"
    "put 513-2048   1-*    9-*        vector\n"
    "put 2049-8192  1-*    1-*        vector\n"
    "put 8193-*     1-*    1-*        blocks\n"
    "get 1-8        1-*    1-2048     vector\n"
    "get 1-8        1-*    2049-*     vector\n"
    "get 9-32       1-*    1-512      vector\n"
    "get 9-32       1-32   513-*      vector\n"
    "get 9-32       33-*   513-*      pack\n"
    "get 33-128     1-*    1-128      vector\n"
    "get 33-128     1-*    129-*      vector\n"
    "get 129-512    1-*    1-32       vector\n"
    "get 129-512    1-*    33-*       vector\n"
    "get 513-2048   1-*    1-8        blocks\n"
    "get 513-2048   1-*    9-*        vector\n"
    "get 2049-8192  1-*    1-*        vector\n"
    "get 8193-*     1-16   1-*        vector\n"
    "get 8193-*     17-32  1-*        blocks\n"
    "get 8193-*     33-*   1-*        vector\n";
