/* test_static.c: static and global variables at deliberately odd alignments, as
 * targets of puts and gets. C so the layout is plain. */
#include <shmem.h>
#include <stdint.h>

/* A packed struct puts the fields at offsets 1, 9, 17... from a 16-byte aligned start. */
struct __attribute__((packed, aligned(16))) odd_layout {
    char pad;
    int64_t at1;
    char pad2[7];
    int64_t at16;
    int64_t at24; /* 8 mod 16 */
    char bytes[37];
};

struct odd_layout static_odd;             /* .bss */
int64_t static_data_8mod16[3] = {1, 2, 3}; /* .data */
static long file_static_counter = 42;

struct odd_layout *static_odd_ptr(void) { return &static_odd; }
int64_t *static_data_ptr(void) { return static_data_8mod16; }
long *static_counter_ptr(void) { return &file_static_counter; }
