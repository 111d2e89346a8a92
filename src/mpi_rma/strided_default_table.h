/* Built-in strided method tables: rules in the SHMEMQ_STRIDED_TABLE format
 * (docs/strided.md), later rules override earlier ones. The best method depends on how
 * the MPI library handles derived datatypes in RMA, so there is one table per library,
 * picked at run time from MPI_Get_library_version. Derived from bench/strided runs, 2 PEs
 * on one 2-core node (docs/strided.md has the numbers), smoothed where neighbouring
 * cells were within noise of each other. */

/* MPICH 4.0.2 (ch4:ucx):
 *  - target-side datatypes cost a fixed ~40-70 us per call, so a handful of blocks, or
 *    big blocks, go fastest as one contiguous MPI call per block;
 *  - many small blocks go fastest packed locally into one call with a target hvector;
 *  - thousands of 8-byte blocks: MPI's datatype engine beats our packing loop. */
static const char default_rules_mpich[] =
    "*  *         *     *      pack\n"
    "*  1-8       *     1025-* vector\n"
    "*  1-128     *     1-8    blocks\n"
    "*  129-1024  *     1-32   blocks\n"
    "*  1025-*    *     *      blocks\n";

/* Open MPI 4.1.4 (osc rdma/sm): datatypes on both sides are cheap, one call with hvectors
 * wins up to 2 KiB blocks; from 8 KiB blocks, or with one or two blocks, contiguous puts
 * per block win. */
static const char default_rules_ompi[] =
    "*  *         *     *      vector\n"
    "*  *         *     1-2    blocks\n"
    "*  4097-*    *     *      blocks\n";
