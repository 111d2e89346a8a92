/* strided_table.c: which method moves a strided transfer fastest.
 *
 * The choice is a predicate table indexed by (direction, block-size class, stride class,
 * block-count class). Classes are powers of two: class c holds values in (2^(c-1), 2^c],
 * so a lookup is three bit scans. The table is filled from rules in a small text format
 * (docs/strided.md): the built-in defaults below, measured with bench/strided, then the
 * rules of the file named by SHMEMQ_STRIDED_TABLE, if any. */
#include "strided_impl.h"
#include <ctype.h>
#include <errno.h>
#include <pthread.h>

#define BS_CLASSES 25    /* 1 B .. 16 MiB and above */
#define RATIO_CLASSES 8  /* stride/block: 1, 2, 4, .., 64 and above */
#define COUNT_CLASSES 25 /* 1 .. 16 Mi blocks and above */

typedef unsigned char table_t[2][BS_CLASSES][RATIO_CLASSES][COUNT_CLASSES];

static table_t table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static int forced_method; /* SHMEMI_STRIDED_AUTO unless a test or the env forces one */
static unsigned table_gen = 1; /* bumped when a file replaces the table (callers' memos) */

unsigned shmemi_strided_table_gen(void)
{
    return __atomic_load_n(&table_gen, __ATOMIC_ACQUIRE);
}

#include "strided_default_table.h"

/* The built-in rules for the MPI library we run on (Open MPI's or MPICH's; MPICH's for
 * any other library, which likely shares its datatype handling). */
static const char *default_rules(void)
{
    static const char *rules;
    if (!rules) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        version[0] = '\0';
        if (MPI_Get_library_version(version, &len) == MPI_SUCCESS && strstr(version, "Open MPI"))
            rules = default_rules_ompi;
        else
            rules = default_rules_mpich;
    }
    return rules;
}

static const char *const method_names[SHMEMI_STRIDED_NMETHODS] = {"auto", "vector", "blocks",
                                                                   "pack"};

const char *shmemi_strided_method_name(int method)
{
    return method >= 0 && method < SHMEMI_STRIDED_NMETHODS ? method_names[method] : "?";
}

int shmemi_strided_method_by_name(const char *name)
{
    for (int m = 0; m < SHMEMI_STRIDED_NMETHODS; m++)
        if (strcmp(name, method_names[m]) == 0)
            return m;
    return -1;
}

/* Smallest c with 2^c >= v, clamped to the last class. */
static inline int class_of(uint64_t v, int nclasses)
{
    int c = v <= 1 ? 0 : 64 - __builtin_clzll(v - 1);
    return c < nclasses ? c : nclasses - 1;
}

static inline size_t absz(ptrdiff_t v)
{
    return v < 0 ? (size_t)0 - (size_t)v : (size_t)v;
}

/* ---- rule parser ---- */
typedef struct {
    uint64_t lo, hi;
} range_t;

/* Number with optional K/M/G suffix (powers of 1024). */
static int parse_num(const char *s, const char **end, uint64_t *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *e;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (*e) {
    case 'K': case 'k': shift = 10; e++; break;
    case 'M': case 'm': shift = 20; e++; break;
    case 'G': case 'g': shift = 30; e++; break;
    default: break;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    *end = e;
    return 0;
}

/* "*", "N", "LO-HI" or "LO-*". */
static int parse_range(const char *tok, range_t *r)
{
    if (strcmp(tok, "*") == 0) {
        r->lo = 0;
        r->hi = UINT64_MAX;
        return 0;
    }
    const char *e;
    if (parse_num(tok, &e, &r->lo))
        return -1;
    if (*e == '\0') {
        r->hi = r->lo;
        return 0;
    }
    if (*e != '-')
        return -1;
    e++;
    if (strcmp(e, "*") == 0) {
        r->hi = UINT64_MAX;
        return 0;
    }
    const char *e2;
    if (parse_num(e, &e2, &r->hi) || *e2 != '\0' || r->hi < r->lo)
        return -1;
    return 0;
}

/* A class is covered when its upper bound 2^c lies in the range; the last class
 * ("and above") is covered when the range reaches past the previous bound. */
static int covers(const range_t *r, int c, int nclasses)
{
    uint64_t top = (uint64_t)1 << c;
    if (c == nclasses - 1)
        return r->hi > (top >> 1);
    return top >= r->lo && top <= r->hi;
}

/* Apply the rules in text to t. On error: message naming `what` and the line, -1. */
static int apply_rules(table_t t, const char *text, const char *what)
{
    int lineno = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[256];
        lineno++;
        if (len >= sizeof line) {
            fprintf(stderr, "[shmemq] %s:%d: line too long; strided table ignored\n", what,
                    lineno);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : p + len;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok[6];
        int ntok = 0;
        for (char *s = strtok(line, " \t\r"); s; s = strtok(NULL, " \t\r"))
            if (ntok < 6)
                tok[ntok++] = s;
            else
                ntok = 7;
        if (ntok == 0)
            continue;
        range_t bs, ratio, count;
        int dir_lo, dir_hi, method = -1;
        const char *err = NULL;
        if (ntok != 5)
            err = "expected 5 fields: DIR BSIZE RATIO NBLOCKS METHOD";
        else if (strcmp(tok[0], "put") == 0)
            dir_lo = dir_hi = 0;
        else if (strcmp(tok[0], "get") == 0)
            dir_lo = dir_hi = 1;
        else if (strcmp(tok[0], "*") == 0)
            dir_lo = 0, dir_hi = 1;
        else
            err = "DIR must be put, get or *";
        if (!err && parse_range(tok[1], &bs))
            err = "bad BSIZE range (use *, N, LO-HI or LO-*; K/M/G suffixes)";
        if (!err && parse_range(tok[2], &ratio))
            err = "bad RATIO range";
        if (!err && parse_range(tok[3], &count))
            err = "bad NBLOCKS range";
        if (!err) { /* METHOD or METHOD/ALTERNATIVE */
            char *slash = strchr(tok[4], '/');
            int alt = 0;
            if (slash) {
                *slash = '\0';
                alt = shmemi_strided_method_by_name(slash + 1);
            }
            method = shmemi_strided_method_by_name(tok[4]);
            if (method <= SHMEMI_STRIDED_AUTO || (slash && alt <= SHMEMI_STRIDED_AUTO))
                err = "METHOD must be vector, blocks or pack, or two of them as A/B";
            else if (alt != method)
                method |= alt << 2;
        }
        if (err) {
            fprintf(stderr, "[shmemq] %s:%d: %s; strided table ignored, defaults kept\n", what,
                    lineno, err);
            return -1;
        }
        for (int d = dir_lo; d <= dir_hi; d++)
            for (int b = 0; b < BS_CLASSES; b++)
                if (covers(&bs, b, BS_CLASSES))
                    for (int r = 0; r < RATIO_CLASSES; r++)
                        if (covers(&ratio, r, RATIO_CLASSES))
                            for (int c = 0; c < COUNT_CLASSES; c++)
                                if (covers(&count, c, COUNT_CLASSES))
                                    t[d][b][r][c] = (unsigned char)method;
    }
    return 0;
}

static void set_defaults(table_t t)
{
    memset(t, SHMEMI_STRIDED_VECTOR, sizeof(table_t));
    if (apply_rules(t, default_rules(), "built-in table"))
        memset(t, SHMEMI_STRIDED_VECTOR, sizeof(table_t));
}

int shmemi_strided_load_table(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "[shmemq] SHMEMQ_STRIDED_TABLE: cannot open %s: %s; defaults kept\n",
                path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *bigger = cap < ((size_t)1 << 24) ? realloc(text, cap * 2) : NULL;
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text) {
        fprintf(stderr, "[shmemq] %s: too large; strided table ignored, defaults kept\n", path);
        return -1;
    }
    text[len] = '\0';
    static table_t scratch;
    set_defaults(scratch);
    int rc = apply_rules(scratch, text, path);
    free(text);
    if (rc == 0) {
        memcpy(table, scratch, sizeof table);
        __atomic_add_fetch(&table_gen, 1, __ATOMIC_RELEASE);
    }
    return rc;
}

static void table_init(void)
{
    set_defaults(table);
    const char *path = getenv("SHMEMQ_STRIDED_TABLE");
    if (path && *path)
        (void)shmemi_strided_load_table(path);
    const char *m = getenv("SHMEMQ_STRIDED_METHOD");
    if (m && *m) {
        int method = shmemi_strided_method_by_name(m);
        if (method >= 0) /* else shmem_init said so (settings.c) */
            forced_method = method;
    }
}

static int table_ready; /* set (release) once table_init has run: the hot path skips
                          * pthread_once, a call into libc */

static void table_init_once(void)
{
    table_init();
    __atomic_store_n(&table_ready, 1, __ATOMIC_RELEASE);
}

static inline void ensure_table(void)
{
    if (__builtin_expect(!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE), 0))
        pthread_once(&table_once, table_init_once);
}

int shmemi_strided_set_method(int method)
{
    ensure_table();
    int old = forced_method;
    if (method >= SHMEMI_STRIDED_AUTO && method < SHMEMI_STRIDED_NMETHODS)
        forced_method = method;
    return old;
}

int shmemi_strided_get_method(void)
{
    ensure_table();
    return forced_method;
}

int shmemi_strided_choose2(int is_get, size_t blksize, ptrdiff_t dst_stride,
                           ptrdiff_t src_stride, size_t nblks, int *alt)
{
    ensure_table();
    *alt = 0;
    if (blksize == 0)
        return SHMEMI_STRIDED_VECTOR;
    size_t ds = absz(dst_stride), ss = absz(src_stride);
    size_t s = ds > ss ? ds : ss;
    /* stride class: the smallest c with blksize * 2^c >= s, i.e. 2^c >= ceil(s / blksize),
     * by shifts (a 64-bit division costs as much as the rest of the lookup) */
    int rc;
    if (blksize > (SIZE_MAX >> RATIO_CLASSES)) {
        uint64_t ratio = s / blksize + (s % blksize != 0);
        rc = class_of(ratio, RATIO_CLASSES);
    } else {
        rc = class_of(s, 64) - (63 - __builtin_clzll(blksize)) - 1;
        rc = rc < 0 ? 0 : rc > RATIO_CLASSES - 1 ? RATIO_CLASSES - 1 : rc;
        while (rc < RATIO_CLASSES - 1 && (blksize << rc) < s)
            rc++;
    }
    int e = table[is_get ? 1 : 0][class_of(blksize, BS_CLASSES)][rc]
                 [class_of(nblks, COUNT_CLASSES)];
    *alt = e >> 2;
    return e & 3;
}

int shmemi_strided_choose(int is_get, size_t blksize, ptrdiff_t dst_stride,
                          ptrdiff_t src_stride, size_t nblks)
{
    int alt;
    return shmemi_strided_choose2(is_get, blksize, dst_stride, src_stride, nblks, &alt);
}
