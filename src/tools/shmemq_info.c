/* shmemq_info: what this shmemq build and the machine give a program, like oshmem_info.
 *
 * Starts the library on one PE (or on as many as it is launched with; PE 0 prints) and
 * reports the library and spec versions, the MPI library and its device, the thread level
 * MPI provides, the symmetric heap and where its size came from, what the node transport
 * got, whether the node agent runs and why (node_agent), how the team collectives run, the comm queues' path to PEs off the node, the data queues' default room and the
 * hwloc figure behind it, and every environment variable with its value and default.
 * Usage: shmemq_info [--json]. */
#include "shmemi.h"
#include "data_queue.h"
#include <stdio.h>
#include <string.h>

/* The variables, their defaults and meanings: the library's own table (settings.c),
 * the one source of truth; docs/environment.md must agree with it (test/info.sh). */
#define vars shmemi_settings
/* A JSON string (the values here are printable ASCII; quotes and backslashes escaped). */
static void jstr(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        if ((unsigned char)*s >= 0x20)
            putchar(*s);
    }
    putchar('"');
}

static const char *level_name(int l)
{
    return l == MPI_THREAD_MULTIPLE   ? "MPI_THREAD_MULTIPLE"
           : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : l == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                        : "MPI_THREAD_SINGLE";
}

/* "ch4:ucx" out of MPICH's version string ("MPICH Device: ch4:ucx"), else "". */
static void mpi_device(const char *v, char *out, size_t n)
{
    out[0] = '\0';
    const char *d = strstr(v, "Device:");
    if (d) {
        d += strlen("Device:");
        while (*d == ' ' || *d == '\t')
            d++;
        size_t k = strcspn(d, " \t\r\n");
        snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), d);
    }
}

int main(int argc, char **argv)
{
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;
    if (argc > 1 && !json) {
        fprintf(stderr, "usage: %s [--json]\n", argv[0]);
        return 2;
    }
    int provided = 0;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0)
        return 1;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, mpi_level = 0;
    MPI_Get_library_version(version, &len);
    MPI_Query_thread(&mpi_level);
    char first[256], device[64];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(version, "\n"), version);
    for (char *c = first; *c; c++)
        if (*c == '\t')
            *c = ' ';
    mpi_device(version, device, sizeof device);
    const char *heap_env = getenv("SHMEM_SYMMETRIC_SIZE") ? "SHMEM_SYMMETRIC_SIZE"
                           : getenv("SMA_SYMMETRIC_SIZE") ? "SMA_SYMMETRIC_SIZE"
                                                          : "default";
    char node[256], prog[400], dq[192], coll[768], offnode[256];
    shmemi_node_describe(node, sizeof node);
    shmemi_am_describe(offnode, sizeof offnode);
    shmemi_coll_describe(coll, sizeof coll); /* collective: every PE */
    shmemi_agent_describe(prog, sizeof prog);
    shmemi_queue_data_describe(dq, sizeof dq, shmem_n_pes());
    const char *path = getenv("SHMEMQ_COMM_PATH");
    const char *cq = path && strcmp(path, "am") == 0
                         ? "am (SHMEMQ_COMM_PATH=am): batches applied by the target"
                         : shmemi_am_on()
                         ? "rma: bursts off the node as one AM request each, applied by the "
                           "target's node (one atomic domain per node)"
                         : "rma: one MPI call per burst, completed by MPI progress even while "
                           "the target waits in MPI";
    if (shmem_my_pe() == 0) {
        const char *kv[][2] = {
            {"library", PACKAGE_STRING},
            {"vendor_string", SHMEM_VENDOR_STRING},
            {"mpi_library", first},
            {"mpi_flavor", SHMEMQ_MPI_FLAVOR},
            {"mpi_device", device},
            {"mpi_thread_level", level_name(mpi_level)},
            {"heap_size_source", heap_env},
            {"node_transport", node},
            {"off_node_transport", offnode},
            {"node_agent", prog},
            {"collectives", coll},
            {"commq_node_peers", "node transport: bursts applied by the pushing PE"},
            {"commq_off_node", cq},
            {"dataq_default_room", dq},
        };
        size_t nkv = sizeof kv / sizeof kv[0], nv = (size_t)shmemi_n_settings;
        if (json) {
            printf("{\n");
            for (size_t i = 0; i < nkv; i++) {
                printf("  ");
                jstr(kv[i][0]);
                printf(": ");
                jstr(kv[i][1]);
                printf(",\n");
            }
            printf("  \"spec_version\": \"%d.%d\",\n  \"pes\": %d,\n  \"heap_bytes\": %zu,\n",
                   SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, shmem_n_pes(), shmemi.heap_size);
            printf("  \"environment\": [\n");
            for (size_t i = 0; i < nv; i++) {
                const char *v = getenv(vars[i].name);
                printf("    {\"name\": ");
                jstr(vars[i].name);
                printf(", \"value\": ");
                if (v)
                    jstr(v);
                else
                    printf("null");
                printf(", \"default\": ");
                jstr(vars[i].dflt);
                printf(", \"meaning\": ");
                jstr(vars[i].what);
                printf(", \"warning\": ");
                jstr(shmemi_setting_note((int)i));
                printf("}%s\n", i + 1 < nv ? "," : "");
            }
            printf("  ]\n}\n");
        } else {
            for (size_t i = 0; i < nkv; i++)
                printf("%-20s %s\n", kv[i][0], kv[i][1]);
            printf("%-20s %d.%d\n%-20s %d\n%-20s %zu bytes per PE\n", "spec_version",
                   SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, "pes", shmem_n_pes(),
                   "heap_bytes", shmemi.heap_size);
            printf("environment (value, default, meaning):\n");
            for (size_t i = 0; i < nv; i++) {
                const char *v = getenv(vars[i].name);
                const char *note = shmemi_setting_note((int)i);
                printf("  %-26s %-10s %-14s %s%s%s\n", vars[i].name, v ? v : "(unset)",
                       vars[i].dflt[0] ? vars[i].dflt : "-", vars[i].what,
                       note[0] ? "; NOT VALID: " : "", note);
            }
        }
        fflush(stdout);
    }
    shmem_finalize();
    return 0;
}
