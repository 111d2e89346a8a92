/* node.c: the node transport's memory. PEs of one node map each other's symmetric heap
 * and data segment, so that puts, gets and atomics between them are loads, stores and
 * CPU atomics that never need the target's CPU (docs/design.md, "One-sided progress").
 *
 *   node        MPI_Comm_split_type(SHARED) of the world, cut into groups of
 *               SHMEMQ_NODE_PES consecutive PEs when that is set (tests run the
 *               inter-node paths on one machine that way); SHMEM_TEAM_SHARED is it.
 *   heap        MPI_Win_allocate where MPI_Win_shared_query answers for every node peer
 *               (MPI-4.1; MPICH >= 4.2, Open MPI's osc/sm); otherwise the node's heaps
 *               come from MPI_Win_allocate_shared on the node communicator and the
 *               world window is an MPI_Win_create over the same memory.
 *   data        the executable's writable segment is moved into a POSIX shared-memory
 *               object at init (copy, then mmap MAP_FIXED over the same addresses), and
 *               node peers map that object; MPI_Win_create then covers the new mapping.
 *
 * node_base[region][pe] is where PE pe's heap_base / data_base is mapped here (NULL: not
 * reachable directly). amo_direct (set here) says the job is one node; with the AM
 * transport (xport_am.c, decided later at init) the atomic domain is per node as well;
 * otherwise every atomic goes through MPI, so two paths never apply atomics to one word
 * (MPI promises nothing against CPU atomics). xport.h's shmemi_xp_amo_node has the rule. */
#include "shmemi.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the inline put/get's view (rma_inline.h: why it fills a page and is page-aligned) */
_Alignas(4096) shmemq_node_fast_t shmemq_node_fast_v2;
_Static_assert(offsetof(shmemq_node_fast_t, node_heap) == 4096 - 64,
               "the inline fields must stay in the last 64 bytes of the page");
static void *node_base_mem[2]; /* the allocations behind shmemi.node_base[] */

static char **peer_heap_raw;  /* per world PE: its heap window memory mapped here */
static const char *heap_how = "none";
static void **data_maps;      /* per world PE: our mapping of its data object */
static size_t data_map_len;

static int node_pes_setting(void)
{
    const char *e = getenv("SHMEMQ_NODE_PES");
    if (!e || !*e)
        return 0;
    char *end;
    long v = strtol(e, &end, 10);
    if (*end || v < 0 || v > (1L << 30))
        return 0; /* shmem_init said so (settings.c) */
    return (int)v;
}

int shmemi_node_comm_init(void)
{
    MPI_Comm real;
    if (MPI_Comm_split_type(shmemi.comm, MPI_COMM_TYPE_SHARED, shmemi.my_pe, MPI_INFO_NULL,
                            &real) != MPI_SUCCESS)
        return -1;
    MPI_Comm_size(real, &shmemi.host_pes);
    int k = node_pes_setting();
    shmemi.host_nodes = 1;
    if (k > 0) {
        MPI_Comm_split(real, shmemi.my_pe / k, shmemi.my_pe, &shmemi.node_comm);
        int node_rank = 0, first;
        MPI_Comm_rank(shmemi.node_comm, &node_rank);
        first = node_rank == 0; /* one node agent per node: the host may run several */
        MPI_Allreduce(&first, &shmemi.host_nodes, 1, MPI_INT, MPI_SUM, real);
        MPI_Comm_free(&real);
    } else {
        shmemi.node_comm = real;
    }
    MPI_Comm_set_errhandler(shmemi.node_comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(shmemi.node_comm, &shmemi.node_size);
    shmemi.heap_shwin = MPI_WIN_NULL;
    for (int r = 0; r < 2; r++) {
        /* the array ends where a page ends: the inline put loads node_base[0][pe] right
         * after copies (rma_inline.h, 4K aliasing), and puts favour low page offsets */
        size_t bytes = sizeof(char *) * (size_t)shmemi.n_pes;
        size_t span = (bytes + 4095) & ~(size_t)4095;
        node_base_mem[r] = aligned_alloc(4096, span);
        if (!node_base_mem[r])
            return -1;
        memset(node_base_mem[r], 0, span);
        shmemi.node_base[r] = (char **)(void *)((char *)node_base_mem[r] + (span - bytes));
    }
    peer_heap_raw = calloc((size_t)shmemi.n_pes, sizeof(char *));
    return peer_heap_raw ? 0 : -1;
}

/* World ranks of the node's PEs, in node-rank order. */
static int *node_world_ranks(void)
{
    int *w = malloc(sizeof(int) * (size_t)shmemi.node_size);
    if (!w)
        shmemi_fatal("shmem_init", "out of host memory");
    MPI_Allgather(&shmemi.my_pe, 1, MPI_INT, w, 1, MPI_INT, shmemi.node_comm);
    return w;
}

/* Every PE agrees: 1 only if ok is 1 everywhere. */
static int all_agree(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, shmemi.comm);
    return all;
}

/* MPICH before 4.2 refuses MPI_Win_shared_query on MPI_Win_allocate windows, and so does
 * Open MPI 4.1 (its MPI_Win_allocate picks osc/rdma, which also touches every page of the
 * window: ~1 s for the default heap at 2 PEs): skip the try there. */
static int allocate_may_share(void)
{
#if defined(OMPI_MAJOR_VERSION)
    return OMPI_MAJOR_VERSION >= 5;
#elif defined(MPICH_NUMVERSION)
    return MPICH_NUMVERSION >= 40200000;
#else
    return 1;
#endif
}

/* by_world: win's group is the world (MPI_Win_allocate), so a node peer is asked by its
 * world rank; otherwise win is the node's (MPI_Win_allocate_shared), asked by node rank.
 * (Asking the world window by node rank maps the wrong PEs' heaps wherever node rank and
 * world rank differ: every node but the first when SHMEMQ_NODE_PES cuts the machine.) */
static int query_peers(MPI_Win win, const int *world, int by_world, MPI_Aint need)
{
    int ok = 1;
    for (int i = 0; i < shmemi.node_size; i++) {
        MPI_Aint size = 0;
        int du = 0;
        char *base = NULL;
        if (MPI_Win_shared_query(win, by_world ? world[i] : i, &size, &du, &base) !=
                MPI_SUCCESS ||
            base == NULL ||
            size < need) {
            ok = 0;
            continue;
        }
        peer_heap_raw[world[i]] = base;
    }
    return ok;
}

int shmemi_node_heap_window(size_t bytes, MPI_Info info, char **base, MPI_Win *win)
{
    int *world = node_world_ranks();
    int rc;
    if (allocate_may_share()) {
        rc = MPI_Win_allocate((MPI_Aint)bytes, 1, info, shmemi.comm, base, win);
        if (rc != MPI_SUCCESS) {
            free(world);
            return rc;
        }
        MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN);
        if (all_agree(query_peers(*win, world, 1, (MPI_Aint)bytes))) {
            free(world);
            heap_how = "MPI_Win_allocate + MPI_Win_shared_query";
            return MPI_SUCCESS;
        }
        MPI_Win_free(win);
        memset(peer_heap_raw, 0, sizeof(char *) * (size_t)shmemi.n_pes);
    }
    /* Page-aligned, NUMA-local segments per PE; then the world window over our own. */
    MPI_Info sh;
    MPI_Info_dup(info, &sh);
    MPI_Info_set(sh, "alloc_shared_noncontig", "true");
    rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, sh, shmemi.node_comm, base,
                                 &shmemi.heap_shwin);
    MPI_Info_free(&sh);
    if (rc == MPI_SUCCESS) {
        MPI_Win_set_errhandler(shmemi.heap_shwin, MPI_ERRORS_RETURN);
        if (!query_peers(shmemi.heap_shwin, world, 0, (MPI_Aint)bytes))
            memset(peer_heap_raw, 0, sizeof(char *) * (size_t)shmemi.n_pes);
        rc = MPI_Win_create(*base, (MPI_Aint)bytes, 1, info, shmemi.comm, win);
        if (rc != MPI_SUCCESS)
            MPI_Win_free(&shmemi.heap_shwin);
        heap_how = "MPI_Win_allocate_shared on the node + MPI_Win_create";
    }
    free(world);
    return rc;
}

/* Once heap_adj is known: where each node peer's heap_base lies here. */
void shmemi_node_heap_done(void)
{
    int ok = 1;
    for (int pe = 0; pe < shmemi.n_pes; pe++)
        if (peer_heap_raw[pe])
            shmemi.node_base[0][pe] = peer_heap_raw[pe] + shmemi.heap_adj[pe];
    ok = shmemi.node_base[0][shmemi.my_pe] == shmemi.heap_base;
    shmemi.node_heap_ok = all_agree(ok);
    if (!shmemi.node_heap_ok) {
        memset(shmemi.node_base[0], 0, sizeof(char *) * (size_t)shmemi.n_pes);
        /* This PE's own heap is its memory whatever MPI said of the peers': puts and gets
         * to itself stay copies (MPI_Put may not even overlap origin and target: MPICH
         * 4.2.1 asserted on such a self-put). */
        shmemi.node_base[0][shmemi.my_pe] = shmemi.heap_base;
    }
}

/* pid and a clock reading: unique among live processes even across pid namespaces
 * that share /dev/shm. */
static void shm_name(char *buf, size_t n, const long id[2])
{
    snprintf(buf, n, "/shmemq-data-%ld-%lx", id[0], (unsigned long)id[1]);
}

/* Copies the whole segment, padding between globals included: sanitizers must not
 * check these reads (AddressSanitizer's redzones live there), and the volatile source
 * keeps the compiler from turning the loop into a (checked) memcpy call. */
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
static void copy_segment(void *dst, uintptr_t src, size_t len, size_t page)
{
    uint64_t *d = dst;
    const volatile uint64_t *s = (const volatile uint64_t *)src;
    size_t words = page / 8;
    /* pages still all zero (untouched .bss) are not written: reading them maps the zero
     * page, and the object reads as zero there anyway */
    for (size_t p = 0; p < len / 8; p += words) {
        size_t i = 0;
        while (i < words && s[p + i] == 0)
            i++;
        for (; i < words; i++)
            d[p + i] = s[p + i];
    }
}

/* Moves [page, page+len) of our own writable segment into a shared-memory object.
 * Nothing else may write the segment meanwhile: at shmem_init only this thread runs
 * the program's code. Returns 0, or -1 with the mapping unchanged. */
static int share_own_segment(uintptr_t page, size_t len, const char *name)
{
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return -1;
    void *tmp = MAP_FAILED;
    /* posix_fallocate: a full /dev/shm fails here, cleanly, instead of a SIGBUS at some
     * later store to a global */
    if (ftruncate(fd, (off_t)len) == 0 && posix_fallocate(fd, 0, (off_t)len) == 0)
        tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        close(fd);
        shm_unlink(name);
        return -1;
    }
    copy_segment(tmp, page, len, (size_t)sysconf(_SC_PAGESIZE));
    /* Replaces the private pages in one call; the copy above holds their contents. */
    void *at = mmap((void *)page, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    munmap(tmp, len);
    close(fd);
    if (at != (void *)page) {
        shm_unlink(name);
        return -1;
    }
    return 0;
}

void shmemi_node_data_share(void)
{
    shmemi.node_data_ok = 0;
    if (shmemi.data_size == 0)
        return;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)shmemi.data_base & ~(pg - 1);
    uintptr_t end = ((uintptr_t)shmemi.data_base + shmemi.data_size + pg - 1) & ~(pg - 1);
    size_t len = (size_t)(end - start);
    int *world = node_world_ranks();
    long *ids = malloc(2 * sizeof(long) * (size_t)shmemi.node_size);
    unsigned long long *lens = malloc(sizeof(*lens) * (size_t)shmemi.node_size);
    data_maps = calloc((size_t)shmemi.n_pes, sizeof(void *));
    if (!ids || !lens || !data_maps)
        shmemi_fatal("shmem_init", "out of host memory");
    int ok = 1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long id[2] = {(long)getpid(), (long)ts.tv_sec * 1000000000L + ts.tv_nsec};
    char name[64];
    shm_name(name, sizeof name, id);
    if (ok && shmemi.node_size > 1)
        ok = share_own_segment(start, len, name) == 0;
    unsigned long long mylen = len;
    MPI_Allgather(id, 2, MPI_LONG, ids, 2, MPI_LONG, shmemi.node_comm);
    MPI_Allgather(&mylen, 1, MPI_UNSIGNED_LONG_LONG, lens, 1, MPI_UNSIGNED_LONG_LONG,
                  shmemi.node_comm);
    /* Each PE's object is mapped by its peers once every PE made its own. */
    ok = all_agree(ok);
    if (ok) {
        for (int i = 0; i < shmemi.node_size && ok; i++) {
            int pe = world[i];
            if (pe == shmemi.my_pe || lens[i] != mylen) {
                ok = pe == shmemi.my_pe; /* same binary: same segment length */
                continue;
            }
            char peer[64];
            shm_name(peer, sizeof peer, &ids[2 * i]);
            int fd = shm_open(peer, O_RDWR, 0600);
            void *m = fd < 0 ? MAP_FAILED
                             : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (fd >= 0)
                close(fd);
            if (m == MAP_FAILED)
                ok = 0;
            else
                data_maps[pe] = m;
        }
    }
    MPI_Barrier(shmemi.node_comm); /* every peer has mapped ours (or given up) */
    if (shmemi.node_size > 1)
        shm_unlink(name);
    ok = all_agree(ok);
    if (ok) {
        data_map_len = len;
        size_t off = (size_t)((uintptr_t)shmemi.data_base - start);
        for (int pe = 0; pe < shmemi.n_pes; pe++)
            if (data_maps[pe])
                shmemi.node_base[1][pe] = (char *)data_maps[pe] + off;
        shmemi.node_base[1][shmemi.my_pe] = shmemi.data_base;
        shmemi.node_data_ok = 1;
    } else {
        for (int pe = 0; pe < shmemi.n_pes; pe++)
            if (data_maps[pe])
                munmap(data_maps[pe], len);
        memset(data_maps, 0, sizeof(void *) * (size_t)shmemi.n_pes);
    }
    free(world);
    free(ids);
    free(lens);
}

void shmemi_node_describe(char *buf, size_t n)
{
    snprintf(buf, n, "node of %d PE(s)%s; heap %s (%s); data segment %s; atomics %s",
             shmemi.node_size, node_pes_setting() > 0 ? " (SHMEMQ_NODE_PES)" : "", heap_how,
             shmemi.node_heap_ok ? "mapped" : "not mapped",
             shmemi.node_data_ok ? "in shared memory, mapped" : "not mapped",
             shmemi.amo_direct ? "CPU atomics (one-node job)"
             : shmemi.offnode_am ? "CPU atomics (one atomic domain per node; off-node ones by AM)"
                                 : "MPI accumulates");
}

/* After both regions: the job's atomic domain (see the top). */
void shmemi_node_done(void)
{
    /* A region that could not be mapped has no node pointers on any PE (all_agree), so
     * its atomics all go through MPI: still one mechanism per word. */
    shmemi.amo_direct = shmemi.node_size == shmemi.n_pes;
    if (shmemi.debug && shmemi.node_size > 1 && (!shmemi.node_heap_ok || !shmemi.node_data_ok))
        fprintf(stderr, "[shmemq PE %d] shmem_init: the %s of node peers could not be mapped "
                        "(see /dev/shm space); MPI carries those operations\n",
                shmemi.my_pe, !shmemi.node_heap_ok ? "heaps" : "data segments");
    shmemq_node_fast_v2.n_pes = shmemi.n_pes;
    shmemq_node_fast_v2.heap_base = (uintptr_t)shmemi.heap_base;
    shmemq_node_fast_v2.heap_size = shmemi.heap_size;
    shmemi_node_inline(1);
    /* SHMEM_DEBUG's line about the node comes from init.c, once the off-node transport
     * (which decides node peers' atomics too) is known */
}

/* The inline node put/get on or off (sessions of the default context turn it off). */
void shmemi_node_inline(int on)
{
    char *const *h = on && shmemi.node_heap_ok ? shmemi.node_base[0] : NULL;
    __atomic_store_n(&shmemq_node_fast_v2.node_heap, h, __ATOMIC_RELEASE);
}

void shmemi_node_fini(void)
{
    shmemi_node_inline(0);
    if (data_maps) {
        for (int pe = 0; pe < shmemi.n_pes; pe++)
            if (data_maps[pe])
                munmap(data_maps[pe], data_map_len);
        free(data_maps);
        data_maps = NULL;
    }
    /* Our own segment stays a shared mapping: its contents are the program's globals. */
    if (shmemi.heap_shwin != MPI_WIN_NULL)
        MPI_Win_free(&shmemi.heap_shwin);
    for (int r = 0; r < 2; r++) {
        free(node_base_mem[r]);
        node_base_mem[r] = NULL;
        shmemi.node_base[r] = NULL;
    }
    free(peer_heap_raw);
    peer_heap_raw = NULL;
    shmemi.amo_direct = shmemi.node_heap_ok = shmemi.node_data_ok = 0;
    MPI_Comm_free(&shmemi.node_comm);
}
