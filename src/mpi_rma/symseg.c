/* symseg.c: static and global variables are symmetric. The executable's writable
 * segment (.data and .bss), moved into node-shared memory first (node.c), is exposed
 * through a second window, created over the same
 * address range on every PE (same binary, so the same offsets from the segment start).
 *
 * The window base is aligned down to 64 bytes and displacements are offset from it:
 * Debian's MPICH 4.0.2 (ch4:ucx) delivers puts 8 bytes low when an MPI_Win_create base
 * is 8 mod 16. The part of the segment that becomes read-only after relocation
 * (PT_GNU_RELRO) is left out: nothing writes there and some transports refuse to
 * register read-only pages. */
#include "shmemi.h"
#include <link.h>
#include <unistd.h>

typedef struct {
    uintptr_t start, end;
    int found;
} segment_t;

static int find_main_segment(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    segment_t *seg = data;
    /* The first object reported is the executable itself. */
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_GNU_RELRO)
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            uintptr_t s = info->dlpi_addr + ph->p_vaddr;
            uintptr_t e = s + ph->p_memsz;
            if (!seg->found || s < seg->start)
                seg->start = s;
            if (!seg->found || e > seg->end)
                seg->end = e;
            seg->found = 1;
        }
    }
    if (seg->found && relro_end > seg->start && relro_end < seg->end) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        seg->start = (relro_end + page - 1) & ~(page - 1);
    }
    return 1; /* stop after the executable */
}

/* MPI never touches the data segment through its window when every PE maps every PE's
 * segment (node.c: node_data_ok) and the whole job is one node (so atomics are CPU
 * atomics too: xport.h). The same answer on every PE: both facts are agreed at init. */
static int stand_in_will_do(void)
{
    return shmemi.node_data_ok && shmemi.node_size == shmemi.n_pes &&
           shmemi.node_base[1][shmemi.my_pe] == shmemi.data_base;
}

int shmemi_symseg_init(void)
{
    segment_t seg = {0, 0, 0};
    dl_iterate_phdr(find_main_segment, &seg);
    if (!seg.found || seg.end <= seg.start) {
        seg.start = seg.end = 0;
    }
    uintptr_t base = seg.start & ~(uintptr_t)63;
    shmemi.data_base = (char *)base;
    shmemi.data_size = (size_t)(seg.end - base);
    shmemi_node_data_share(); /* node peers map it; the window then covers the new pages */

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_disp_unit", "true");
    /* Cross-op AMO atomicity, as for the heap window (heap.c, docs/amo.md). */
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_Info_set(info, "which_accumulate_ops", "any_op");
    int rc = MPI_Win_create(shmemi.data_size ? shmemi.data_base : NULL, (MPI_Aint)shmemi.data_size,
                            1, info, shmemi.comm, &shmemi.data_win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS && stand_in_will_do()) {
        /* Open MPI as Debian builds it has no component that creates a window over
         * existing memory for a job on one node (osc/sm only allocates; init.c allows
         * osc/ucx and pt2pt, but only when shmemq starts MPI: a program that called
         * MPI_Init itself is past that point). Nothing needs this window there (see
         * stand_in_will_do), so one MPI_Win_allocate'd byte stands in for it: it keeps
         * the flushes and syncs every path issues on data_win valid. */
        char *unused;
        rc = MPI_Win_allocate(1, 1, MPI_INFO_NULL, shmemi.comm, &unused, &shmemi.data_win);
        if (rc == MPI_SUCCESS)
            shmemi_debug("shmem_init", "MPI_Win_create over the data segment failed; the "
                                       "node transport carries every access to it");
    }
    if (rc != MPI_SUCCESS) {
        char err[MPI_MAX_ERROR_STRING];
        fprintf(stderr,
                "[shmemq PE %d] shmem_init: MPI_Win_create over the data segment "
                "(%p, %zu bytes) failed: %s\n",
                shmemi.my_pe, (void *)shmemi.data_base, shmemi.data_size,
                shmemi_mpi_strerror(rc, err));
        return -1;
    }
    MPI_Win_set_errhandler(shmemi.data_win, MPI_ERRORS_RETURN);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, shmemi.data_win);
    return 0;
}

void shmemi_symseg_fini(void)
{
    MPI_Win_unlock_all(shmemi.data_win);
    MPI_Win_free(&shmemi.data_win);
    shmemi.data_base = NULL;
    shmemi.data_size = 0;
}
