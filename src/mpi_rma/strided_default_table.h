/* Built-in strided method tables: rules in the SHMEMQ_STRIDED_TABLE format
 * (docs/strided.md), later rules override earlier ones. The best method depends on how
 * the MPI library handles derived datatypes in RMA, so there is one table per library,
 * picked at run time from MPI_Get_library_version. Both are the -w output of
 * bench/strided over 28 passes (three 8-pass runs at different times read back with -a,
 * plus 4 passes), 2 PEs on one shared 2-core node, pasted unchanged: per bench cell
 * (block-size class x stride class x block-count range) the method that was within 3% of
 * the best in the most passes. Two edits by hand since, measured (docs/strided.md): 8-byte
 * gets of 2049+ blocks at every stride go packed (the pack loops copy small blocks
 * inline now), and puts and gets of 129-512-byte blocks by the dozen pick between pack and blocks
 * at run time ("A/B": the engine times sample calls to remote completion). */

/* MPICH 4.0.2 (ch4:ucx): target-side datatypes cost a fixed ~40-70 us per call (active
 * messages through the target's progress engine), so a few blocks, or blocks >= 2 KiB, go
 * fastest as one contiguous MPI call per block; many small blocks go fastest packed
 * locally into one call with a target hvector. 512-byte blocks by the hundred: pack or
 * blocks win by 15-30% depending on how promptly the target process runs (pack is
 * faster more often; gets choose at run time). */
static const char default_rules_mpich[] =
    "*  *  *  *  vector\n"
    "put 1-8        1-*    1-2048     pack\n"
    "put 1-8        1-*    2049-*     pack\n"
    "put 9-32       1-*    1-512      pack\n"
    "put 9-32       1-*    513-*      pack\n"
    "put 33-128     1-*    1-128      pack\n"
    "put 33-128     1-*    129-*      pack\n"
    "put 129-512    1-*    1-32       blocks\n"
    "put 129-512    1-*    33-*       pack/blocks\n"
    "put 513-2048   1-*    1-8        blocks\n"
    "put 513-2048   1-*    9-*        blocks\n"
    "put 2049-8192  1-*    1-*        blocks\n"
    "put 8193-*     1-*    1-*        blocks\n"
    "get 1-8        1-*    1-2048     pack\n"
    "get 1-8        1-*    2049-*     pack\n"
    "get 9-32       1-*    1-512      pack\n"
    "get 9-32       1-*    513-*      pack\n"
    "get 33-128     1-*    1-128      pack\n"
    "get 33-128     1-*    129-*      pack\n"
    "get 129-512    1-*    1-32       blocks\n"
    "get 129-512    1-*    33-*       pack/blocks\n"
    "get 513-2048   1-*    1-8        blocks\n"
    "get 513-2048   1-*    9-*        blocks\n"
    "get 2049-8192  1-*    1-*        blocks\n"
    "get 8193-*     1-*    1-*        blocks\n";

/* Open MPI 4.1.4 (osc rdma/sm): datatypes on both sides are cheap, one call with hvectors
 * wins nearly everywhere; contiguous calls per block win for a few blocks of 513..2048 B
 * and for some of the largest blocks; blocks of up to 32 bytes at large strides
 * (memory-bound spans of up to 4 MiB): vector or pack, depending on the other processes'
 * memory traffic. Re-measured after the pack loops began copying small blocks inline:
 * 16 passes (-p 8 twice, the second reading the first with -a), with one cell set back
 * to vector by hand (4 KiB of 9-32-byte blocks at strides 17-32x: a coin flip between
 * vector and pack, vector in the earlier 28 passes). */
static const char default_rules_ompi[] =
    "*  *  *  *  vector\n"
    "put 1-8        1-*    1-2048     vector\n"
    "put 1-8        1-16   2049-*     vector\n"
    "put 1-8        17-32  2049-*     pack\n"
    "put 1-8        33-*   2049-*     vector\n"
    "put 9-32       1-*    1-512      vector\n"
    "put 9-32       1-32   513-*      vector\n"
    "put 9-32       33-*   513-*      pack\n"
    "put 33-128     1-*    1-128      vector\n"
    "put 33-128     1-*    129-*      vector\n"
    "put 129-512    1-*    1-32       vector\n"
    "put 129-512    1-*    33-*       vector\n"
    "put 513-2048   1-*    1-8        blocks\n"
    "put 513-2048   1-*    9-*        vector\n"
    "put 2049-8192  1-*    1-*        vector\n"
    "put 8193-*     1-8    1-*        blocks\n"
    "put 8193-*     9-16   1-*        vector\n"
    "put 8193-*     17-*   1-*        blocks\n"
    "get 1-8        1-*    1-2048     vector\n"
    "get 1-8        1-16   2049-*     vector\n"
    "get 1-8        17-*   2049-*     pack\n"
    "get 9-32       1-*    1-512      vector\n"
    "get 9-32       1-16   513-*      vector\n"
    "get 9-32       17-*   513-*      pack\n"
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
