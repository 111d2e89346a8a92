/* Built-in strided method table: rules in the SHMEMQ_STRIDED_TABLE format
 * (docs/strided.md), later rules override earlier ones. Derived from bench/strided runs
 * with MPICH 4.0.2 (ch4:ucx), 2 PEs on one 2-core node (docs/strided.md has the numbers),
 * smoothed where neighbouring cells were within noise of each other:
 *  - target-side datatypes cost a fixed ~40-70 us per call in MPICH, so a handful of
 *    blocks, or big blocks, go fastest as one contiguous MPI call per block;
 *  - many small blocks go fastest packed locally into one MPI call with a target hvector;
 *  - 8-byte blocks at wide strides: MPI's datatype engine beats our packing loop. */
"*  *         *     *      pack\n"
"*  1-8       9-*   *      vector\n"
"*  1-128     *     1-8    blocks\n"
"*  129-1024  *     1-32   blocks\n"
"*  1025-*    *     *      blocks\n"
