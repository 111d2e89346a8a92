/* heap.c: the symmetric heap. One window per job (MPI_Win_allocate, or an MPI_Win_create
 * over node-shared memory: node.c), locked once with MPI_Win_lock_all; a deterministic allocator (every PE makes the same calls, so every
 * PE gets the same offsets) carves it up. Block metadata lives outside the heap so the
 * heap holds only user data. */
#include "shmemi.h"
#include <sys/resource.h>

#define HEAP_DEFAULT_SIZE ((size_t)256 << 20) /* docs/environment.md: why 256 MiB */
#define HEAP_MIN_ALIGN ((size_t)64) /* cache line; also keeps MPI's 16-byte paths happy */
/* The usable heap starts at this alignment on every PE, so shmem_align offsets are
 * absolute alignments up to it. The allocator never hands out the window's slack around
 * the heap. Window: [adj slack][heap][HEAP_BASE_ALIGN - adj slack][heap_extra]. */
#define HEAP_BASE_ALIGN ((size_t)8 << 20)
/* Spare bytes after the slack, asked by the layers above (shmemi_modules_heap_spare: the
 * comm queues' owner mailboxes, sized for the node, cq_owner.c; the runtime calls no
 * queue routine), the same on every PE (the window's same_size). With the tail slack they
 * are the spare range (shmemi_heap_spare) that node peers map with the heap. Address
 * space only: pages are touched when a mailbox is used. SHMEM_SYMMETRIC_SIZE stays the
 * user's heap; shmem_malloc never reaches these. 0: the spare range is the larger side
 * of the slack, as before any module asked. */
static size_t heap_extra;

typedef struct block {
    size_t off, size;
    int free;
    struct block *prev, *next;
} block_t;

static block_t *blocks; /* sorted by offset, covering the whole heap */

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) & ~(a - 1);
}

static block_t *block_new(size_t off, size_t size, int free_, block_t *prev, block_t *next)
{
    block_t *b = malloc(sizeof *b);
    if (!b)
        shmemi_fatal("shmem_malloc", "out of host memory for heap metadata");
    b->off = off;
    b->size = size;
    b->free = free_;
    b->prev = prev;
    b->next = next;
    if (prev)
        prev->next = b;
    else
        blocks = b;
    if (next)
        next->prev = b;
    return b;
}

static void block_unlink(block_t *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        blocks = b->next;
    if (b->next)
        b->next->prev = b->prev;
    free(b);
}

/* Every node peer's heap is mapped in each process (node.c), so the node's heaps must fit
 * one address space: x86-64 and most 64-bit systems give a process 2^47 bytes, and
 * RLIMIT_AS may give less. Asked of MPI instead, a heap far too large aborts inside some
 * MPIs (MPICH ch4:ofi asserts in MPI_Win_allocate_shared) with no word about the cause.
 * The answer is agreed over the world, so no PE goes on into the collective window
 * creation that another has refused. 0, or -1 after saying why. */
static int heap_fits(size_t bytes)
{
    unsigned long long space = sizeof(void *) == 8 ? 1ULL << 47 : 1ULL << 31;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < space)
        space = (unsigned long long)rl.rlim_cur;
    unsigned long long need = (unsigned long long)bytes * (unsigned long long)shmemi.node_size;
    int ok = bytes <= space / (unsigned long long)shmemi.node_size, all = 0;
    if (!ok)
        fprintf(stderr,
                "[shmemq PE %d] shmem_init: a %zu-byte symmetric heap on each of this node's "
                "%d PEs needs %llu bytes of address space in every process, more than the "
                "%llu a process has (lower SHMEM_SYMMETRIC_SIZE)\n",
                shmemi.my_pe, bytes, shmemi.node_size, need, space);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, shmemi.comm);
    return all ? 0 : -1;
}

int shmemi_heap_init(void)
{
    size_t size = HEAP_DEFAULT_SIZE;
    const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
    if (env == NULL)
        env = getenv("SMA_SYMMETRIC_SIZE");
    if (env != NULL && (shmemi_parse_size(env, &size) != 0 || size == 0))
        size = HEAP_DEFAULT_SIZE; /* shmem_init said so (settings.c) */
    size = align_up(size, HEAP_MIN_ALIGN);
    /* nodes may differ in size: every PE reserves the largest node's request */
    unsigned long long want = align_up(shmemi_modules_heap_spare(shmemi.node_size), 4096);
    unsigned long long most = 0;
    MPI_Allreduce(&want, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, shmemi.comm);
    heap_extra = (size_t)most;
    size_t win_bytes = size + HEAP_BASE_ALIGN + heap_extra;
    if (heap_fits(win_bytes) != 0)
        return -1;

    MPI_Info info;
    MPI_Info_create(&info);
    /* Every PE passes the same size and disp_unit: lets MPI skip per-target metadata. */
    MPI_Info_set(info, "same_size", "true");
    MPI_Info_set(info, "same_disp_unit", "true");
    /* AMOs mix op kinds on one location (add, swap, compare_swap, fetch): never promise
     * MPI "same_op"; MPICH must not pick hardware atomics for a subset of ops (docs/amo.md). */
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_Info_set(info, "which_accumulate_ops", "any_op");
    char *win_base = NULL;
    /* MPICH's search for equal bases costs one msync per page (mpit_cvar.c); we use
     * offsets anyway. Only when the user has not chosen a value. */
    shmemi_cvar_saved_t symheap = {0};
#ifdef SHMEMQ_MPI_IS_MPICH
    if (!getenv("MPIR_CVAR_SHM_SYMHEAP_RETRY") && !getenv("MPICH_SHM_SYMHEAP_RETRY") &&
        !getenv("MPIR_PARAM_SHM_SYMHEAP_RETRY"))
        (void)shmemi_cvar_push_int("MPIR_CVAR_SHM_SYMHEAP_RETRY", 0, &symheap);
#endif
    int rc = shmemi_node_heap_window(win_bytes, info, &win_base, &shmemi.heap_win);
    shmemi_cvar_pop(&symheap);
    if (rc != MPI_SUCCESS && shmemi.n_pes == 1) {
        /* Open MPI 4.1 as Debian builds it, when the program called MPI_Init itself (too
         * late for init.c to allow osc/ucx and pt2pt): no component creates a window
         * over the node's shared segment for a single process. osc/sm allocates one
         * itself; MPI (osc/sm: shared memory) then carries this PE's heap accesses. Only
         * at 1 PE, where node.c has no peer mapping that could outlive its window. */
        rc = MPI_Win_allocate((MPI_Aint)win_bytes, 1, info, shmemi.comm,
                              &win_base, &shmemi.heap_win);
        if (rc == MPI_SUCCESS)
            shmemi_debug("shmem_init", "the heap's window over node-shared memory failed; "
                                       "a plain MPI_Win_allocate holds the heap");
    }
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr,
                "[shmemq PE %d] shmem_init: MPI_Win_allocate of a %zu-byte symmetric heap "
                "failed (lower SHMEM_SYMMETRIC_SIZE)\n",
                shmemi.my_pe, size);
        return -1;
    }
    MPI_Win_set_errhandler(shmemi.heap_win, MPI_ERRORS_RETURN);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, shmemi.heap_win);
    /* Align the usable heap so shmem_align and cache-line placement mean the same on
     * every PE; each PE's offset into its own window is exchanged once. */
    MPI_Aint adj = (MPI_Aint)(align_up((size_t)(uintptr_t)win_base, HEAP_BASE_ALIGN) -
                              (size_t)(uintptr_t)win_base);
    shmemi.heap_adj = malloc(sizeof(MPI_Aint) * (size_t)shmemi.n_pes);
    if (!shmemi.heap_adj)
        shmemi_fatal("shmem_init", "out of host memory");
    MPI_Allgather(&adj, 1, MPI_AINT, shmemi.heap_adj, 1, MPI_AINT, shmemi.comm);
    shmemi.heap_base = win_base + adj;
    shmemi.heap_size = size;
    shmemi_node_heap_done();
    blocks = NULL;
    block_new(0, size, 1, NULL, NULL);
    return 0;
}

void shmemi_heap_fini(void)
{
    while (blocks)
        block_unlink(blocks);
    MPI_Win_unlock_all(shmemi.heap_win);
    MPI_Win_free(&shmemi.heap_win);
    free(shmemi.heap_adj);
    shmemi.heap_adj = NULL;
    shmemi.heap_base = NULL;
    shmemi.heap_size = 0;
    heap_extra = 0;
}

/* First fit; splits off the alignment gap and the tail as free blocks. */
static void *heap_alloc(size_t size, size_t alignment)
{
    if (size > shmemi.heap_size || alignment > shmemi.heap_size)
        return NULL;
    size = align_up(size, HEAP_MIN_ALIGN);
    for (block_t *b = blocks; b; b = b->next) {
        if (!b->free)
            continue;
        size_t start = align_up(b->off, alignment);
        if (start < b->off || start - b->off > b->size || b->size - (start - b->off) < size)
            continue;
        if (start > b->off) { /* leading gap stays free */
            block_new(b->off, start - b->off, 1, b->prev, b);
            b->size -= start - b->off;
            b->off = start;
        }
        if (b->size > size) { /* tail stays free */
            block_new(b->off + size, b->size - size, 1, b, b->next);
            b->size = size;
        }
        b->free = 0;
        return shmemi.heap_base + b->off;
    }
    return NULL;
}

static block_t *heap_find(void *ptr)
{
    if (!ptr || (char *)ptr < shmemi.heap_base || (char *)ptr >= shmemi.heap_base + shmemi.heap_size)
        return NULL;
    size_t off = (size_t)((char *)ptr - shmemi.heap_base);
    for (block_t *b = blocks; b; b = b->next)
        if (b->off == off && !b->free)
            return b;
    return NULL;
}

static void heap_release(block_t *b)
{
    b->free = 1;
    if (b->next && b->next->free) {
        b->size += b->next->size;
        block_unlink(b->next);
    }
    if (b->prev && b->prev->free) {
        b->prev->size += b->size;
        block_unlink(b);
    }
}

/* The heap could not serve size bytes: say how much is free and what sets the size
 * (a NULL that the program does not check would otherwise be a silent segfault). */
static void say_exhausted(const char *routine, size_t size)
{
    size_t free_bytes = 0, largest = 0;
    for (block_t *b = blocks; b; b = b->next)
        if (b->free) {
            free_bytes += b->size;
            if (b->size > largest)
                largest = b->size;
        }
    shmemi_once(routine,
                "symmetric heap exhausted: %zu bytes asked, %zu free (largest free block %zu) "
                "of %zu; SHMEM_SYMMETRIC_SIZE sets the heap size (docs/environment.md)",
                size, free_bytes, largest, shmemi.heap_size);
}

/* Under SHMEM_DEBUG, check that every PE asked for the same thing. */
static void check_symmetric_request(const char *routine, size_t a, size_t b)
{
    if (!shmemi.debug)
        return;
    unsigned long long mine[2] = {a, b}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, shmemi.comm);
    MPI_Allreduce(mine, hi, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, shmemi.comm);
    if (lo[0] != hi[0] || lo[1] != hi[1])
        shmemi_bad_arg(routine, "PEs passed different arguments (%llu..%llu, %llu..%llu): "
                                "symmetric allocation must be called alike on every PE",
                       lo[0], hi[0], lo[1], hi[1]);
}

static void *alloc_collective(const char *routine, size_t size, size_t alignment, int zero)
{
    if (shmemi_check_init(routine))
        return NULL;
    check_symmetric_request(routine, size, alignment);
    void *p = NULL;
    if (size > 0) {
        p = heap_alloc(size, alignment);
        if (!p && size != SIZE_MAX) /* SIZE_MAX: shmem_calloc's overflow, said there */
            say_exhausted(routine, size);
        else if (p && zero)
            memset(p, 0, size); /* before the barrier: peers may write right after it */
    }
    shmem_barrier_all();
    return p;
}

void *shmem_malloc(size_t size)
{
    return alloc_collective("shmem_malloc", size, HEAP_MIN_ALIGN, 0);
}
SHMEMI_PROFILE(shmem_malloc)

void *shmem_malloc_with_hints(size_t size, long hints)
{
    if (hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        shmemi_debug("shmem_malloc_with_hints", "unknown hint bits 0x%lx ignored", hints);
    return alloc_collective("shmem_malloc_with_hints", size, HEAP_MIN_ALIGN, 0);
}
SHMEMI_PROFILE(shmem_malloc_with_hints)

void *shmem_calloc(size_t count, size_t size)
{
    size_t total = 0;
    if (size != 0 && count > SIZE_MAX / size) {
        shmemi_once("shmem_calloc", "count %zu * size %zu overflows size_t: returns NULL",
                    count, size);
        total = SIZE_MAX; /* fails in the allocator on every PE alike */
    } else {
        total = count * size;
    }
    return alloc_collective("shmem_calloc", total, HEAP_MIN_ALIGN, 1);
}
SHMEMI_PROFILE(shmem_calloc)

void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        shmemi_debug("shmem_align", "alignment %zu is not a power of two", alignment);
        shmem_barrier_all();
        return NULL;
    }
    if (alignment > HEAP_BASE_ALIGN) { /* could not be the same offset on every PE */
        shmemi_debug("shmem_align", "alignment %zu is above the supported %zu", alignment,
                     HEAP_BASE_ALIGN);
        shmem_barrier_all();
        return NULL;
    }
    return alloc_collective("shmem_align", size,
                            alignment < HEAP_MIN_ALIGN ? HEAP_MIN_ALIGN : alignment, 0);
}
SHMEMI_PROFILE(shmem_align)

void shmem_free(void *ptr)
{
    if (shmemi_check_init("shmem_free"))
        return;
    shmem_barrier_all(); /* nobody may still be reaching the block */
    if (ptr == NULL)
        return;
    block_t *b = heap_find(ptr);
    if (!b) {
        shmemi_bad_arg("shmem_free", "%p was not returned by a symmetric allocation", ptr);
        return;
    }
    heap_release(b);
}
SHMEMI_PROFILE(shmem_free)

void *shmem_realloc(void *ptr, size_t size)
{
    static const char *routine = "shmem_realloc";
    if (ptr == NULL)
        return alloc_collective(routine, size, HEAP_MIN_ALIGN, 0);
    if (shmemi_check_init(routine))
        return NULL;
    block_t *b = heap_find(ptr);
    if (!b) {
        shmemi_bad_arg(routine, "%p was not returned by a symmetric allocation", ptr);
        shmem_barrier_all();
        return NULL;
    }
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    shmem_barrier_all(); /* the old block may still be a target */
    void *p = NULL;
    /* Refuse before rounding up: align_up would wrap a size near SIZE_MAX to a tiny one
     * and "shrink" the block in place, handing its bytes to the next allocation. */
    size_t want = size <= shmemi.heap_size ? align_up(size, HEAP_MIN_ALIGN) : 0;
    if (want == 0) {
        say_exhausted(routine, size);
    } else if (want <= b->size) {
        if (b->size > want) { /* give back the tail */
            block_new(b->off + want, b->size - want, 1, b, b->next);
            b->size = want;
            if (b->next->next && b->next->next->free) {
                b->next->size += b->next->next->size;
                block_unlink(b->next->next);
            }
        }
        p = ptr;
    } else if (b->next && b->next->free && b->size + b->next->size >= want) {
        block_t *n = b->next; /* grow in place */
        size_t extra = want - b->size;
        b->size = want;
        if (n->size == extra) {
            block_unlink(n);
        } else {
            n->off += extra;
            n->size -= extra;
        }
        p = ptr;
    } else {
        p = heap_alloc(size, HEAP_MIN_ALIGN);
        if (p) {
            memcpy(p, ptr, b->size);
            heap_release(b);
        } else {
            say_exhausted(routine, size);
        }
    }
    shmem_barrier_all();
    return p;
}
SHMEMI_PROFILE(shmem_realloc)

void *shmalloc(size_t size) { return shmem_malloc(size); }
SHMEMI_PROFILE(shmalloc)
void shfree(void *ptr) { shmem_free(ptr); }
SHMEMI_PROFILE(shfree)
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
SHMEMI_PROFILE(shrealloc)
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
SHMEMI_PROFILE(shmemalign)

int shmemi_heap_spare(int pe, uintptr_t *lo, uintptr_t *hi)
{
    char *base = shmemi.node_base[0] ? shmemi.node_base[0][pe] : NULL; /* node.c's mapping */
    if (!base || !shmemi.node_heap_ok || !shmemi.heap_adj)
        return -1;
    size_t adj = (size_t)shmemi.heap_adj[pe], slack = HEAP_BASE_ALIGN;
    if (adj > slack)
        return -1;
    if (heap_extra) { /* the tail slack and the bytes asked for, after the heap */
        *lo = (uintptr_t)base + shmemi.heap_size;
        *hi = *lo + (slack - adj) + heap_extra;
    } else if (adj >= slack - adj) { /* the larger side: before the heap ... */
        *lo = (uintptr_t)base - adj;
        *hi = (uintptr_t)base;
    } else { /* ... or after it */
        *lo = (uintptr_t)base + shmemi.heap_size;
        *hi = *lo + (slack - adj);
    }
    return 0;
}
