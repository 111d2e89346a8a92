/* Built-in strided method tables: rules in the SHMEMQ_STRIDED_TABLE format
 * (docs/strided.md), later rules override earlier ones. The best method depends on how
 * the MPI library handles derived datatypes in RMA, so there is one table per library,
 * picked at run time from MPI_Get_library_version. Both are the -w output of
 * bench/strided over 28 passes (three 8-pass runs at different times read back with -a,
 * plus 4 passes), 2 PEs on one shared 2-core node, pasted unchanged: per bench cell
 * (block-size class x stride class x block-count range) the method that was within 3% of
 * the best in the most passes. (The run also proposed run-time alternatives "A/B" for the
 * regime-dependent cells; they are left out: the engine's per-call timing picked the
 * wrong one in verification, see docs/strided.md.) docs/strided.md has the numbers and
 * the commands. */

/* MPICH 4.0.2 (ch4:ucx): target-side datatypes cost a fixed ~40-70 us per call (active
 * messages through the target's progress engine), so a few blocks, or blocks >= 2 KiB, go
 * fastest as one contiguous MPI call per block; many small blocks go fastest packed
 * locally into one call with a target hvector. 512-byte blocks by the hundred: pack or
 * blocks win by 15-30% depending on how promptly the target process runs (pack is
 * faster more often). */
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
    "get 1-8        17-32  2049-*     vector\n"
    "get 1-8        33-*   2049-*     vector\n"
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

/* Open MPI 4.1.4 (osc rdma/sm): datatypes on both sides are cheap, one call with hvectors
 * wins nearly everywhere; contiguous calls per block win for a few blocks of 513..2048 B
 * and for the largest blocks; 32..128-byte blocks at large strides (memory-bound spans of
 * up to 4 MiB): vector or pack, depending on the other processes' memory traffic. */
static const char default_rules_ompi[] =
    "*  *  *  *  vector\n"
    "put 1-8        1-*    1-2048     vector\n"
    "put 1-8        1-*    2049-*     vector\n"
    "put 9-32       1-*    1-512      vector\n"
    "put 9-32       1-16   513-*      vector\n"
    "put 9-32       17-32  513-*      vector\n"
    "put 9-32       33-*   513-*      vector\n"
    "put 33-128     1-*    1-128      vector\n"
    "put 33-128     1-*    129-*      vector\n"
    "put 129-512    1-*    1-32       vector\n"
    "put 129-512    1-*    33-*       vector\n"
    "put 513-2048   1-*    1-8        blocks\n"
    "put 513-2048   1-*    9-*        vector\n"
    "put 2049-8192  1-*    1-*        vector\n"
    "put 8193-*     1-2    1-*        blocks\n"
    "put 8193-*     3-8    1-*        vector\n"
    "put 8193-*     9-16   1-*        blocks\n"
    "put 8193-*     17-32  1-*        vector\n"
    "put 8193-*     33-*   1-*        blocks\n"
    "get 1-8        1-*    1-2048     vector\n"
    "get 1-8        1-*    2049-*     vector\n"
    "get 9-32       1-16   1-512      vector\n"
    "get 9-32       17-*   1-512      vector\n"
    "get 9-32       1-16   513-*      vector\n"
    "get 9-32       17-*   513-*      vector\n"
    "get 33-128     1-*    1-128      vector\n"
    "get 33-128     1-*    129-*      vector\n"
    "get 129-512    1-*    1-32       vector\n"
    "get 129-512    1-*    33-*       vector\n"
    "get 513-2048   1-*    1-8        blocks\n"
    "get 513-2048   1-*    9-*        vector\n"
    "get 2049-8192  1-*    1-*        vector\n"
    "get 8193-*     1-8    1-*        vector\n"
    "get 8193-*     9-16   1-*        blocks\n"
    "get 8193-*     17-*   1-*        vector\n";
