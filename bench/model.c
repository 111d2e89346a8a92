/* bench/model.c: the queues' memory model (shmemx_queue_model) as CSV, for bench/plot and
 * docs/scaling.md. No communication: one PE is enough (comm modes need shmem_init, which
 * reads the chunk sizes), so run it as `mpiexec -n 1 bench/model`.
 *
 * For each P (default 1, 2, 4, ... 1,048,576; -p list to choose) with node_pes = P below
 * -n and -n from there (default 64: "64 PEs per node from 64 up"; -n 0 keeps P on one
 * node), every mode the model accepts (modes 1..MODE_SCAN, each tried as a comm and as a
 * data queue, so a mode added to shmemx.h appears without a change here; the name table
 * below only gives it a readable label), in these configurations:
 *   comm:  add  (SHMEM_OP_ATOMIC_ADD, bench/histogram's commq), get (SHMEM_OP_GET,
 *          bench/indexgather's commq_get), any (SHMEM_OP_ANY), library defaults otherwise
 *   data:  default (8-byte elements, default room), room256k (8-byte elements, 256 KiB
 *          per peer: bench/indexgather's dataq)
 * one CSV line:
 *   mode,mode_name,queue,config,npes,node_pes,meta_bytes,track_bytes,scratch_bytes,
 *   scratch_once_bytes,buffer_bytes,min_buffers,max_buffers,max_total_bytes
 * (the fields of shmemx_queue_model_t; max_total_bytes is the bound bench/plot draws).
 * Exit status 1 if no mode answered (the model refused everything). */
#include <shmem.h>
#include <shmemx.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODE_SCAN 64 /* modes tried: the enum is small; unknown ones are refused (ARG) */

static const char *mode_name(int m, char *buf, size_t len)
{
    switch (m) {
    case SHMEMX_QUEUE_MODE_COMM_RMA: return "comm_rma";
    case SHMEMX_QUEUE_MODE_COMM_AM: return "comm_am";
    case SHMEMX_QUEUE_MODE_COMM_NODE: return "comm_node";
    case SHMEMX_QUEUE_MODE_DATA_FLAT: return "data_flat";
    case SHMEMX_QUEUE_MODE_DATA_ROUTED: return "data_routed";
    case SHMEMX_QUEUE_MODE_DATA_NBX: return "data_nbx";
    case SHMEMX_QUEUE_MODE_DATA_ROUTED3: return "data_routed3";
    default: snprintf(buf, len, "mode%d", m); return buf; /* a mode newer than this table */
    }
}

typedef struct {
    const char *name;
    shmem_queue_config_t c;
} cfg_t;

static void usage(void)
{
    fprintf(stderr, "usage: model [-p P,P,...] [-n PEs per node from there on (0: one node)]\n");
}

int main(int argc, char **argv)
{
    const char *plist = NULL;
    int npn = 64, opt;
    while ((opt = getopt(argc, argv, "p:n:h")) != -1) {
        switch (opt) {
        case 'p': plist = optarg; break;
        case 'n': npn = atoi(optarg); break;
        default: usage(); return opt == 'h' ? 0 : 2;
        }
    }
    if (npn < 0) {
        usage();
        return 2;
    }
    int ps[64], np = 0;
    if (plist) {
        char *dup = strdup(plist), *save = NULL;
        for (char *t = strtok_r(dup, ",", &save); t && np < 64; t = strtok_r(NULL, ",", &save)) {
            long v = strtol(t, NULL, 0);
            if (v < 1 || v > (1L << 30)) {
                fprintf(stderr, "model: bad P %s\n", t);
                free(dup);
                return 2;
            }
            ps[np++] = (int)v;
        }
        free(dup);
    } else {
        for (long p = 1; p <= (1L << 20); p *= 2)
            ps[np++] = (int)p;
    }

    shmem_init();
    cfg_t cfg[5];
    memset(cfg, 0, sizeof cfg);
    const shmem_op_type_t comm_ops[3] = {SHMEM_OP_ATOMIC_ADD, SHMEM_OP_GET, SHMEM_OP_ANY};
    const char *comm_names[3] = {"add", "get", "any"};
    for (int i = 0; i < 3; i++) {
        cfg[i].name = comm_names[i];
        cfg[i].c.qtype = SHMEM_QUEUE_COMM;
        cfg[i].c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
        cfg[i].c.op_type = comm_ops[i];
        cfg[i].c.pe_type = SHMEM_PE_ALL;
    }
    for (int i = 3; i < 5; i++) {
        cfg[i].c.qtype = SHMEM_QUEUE_DATA;
        cfg[i].c.data_elem_size = 8;
        cfg[i].c.timeout_flush = SHMEM_QUEUE_MAX_TIMEOUT;
    }
    cfg[3].name = "default";
    cfg[4].name = "room256k";
    cfg[4].c.max_bytes = 256 << 10;

    if (shmem_my_pe() == 0) {
        printf("mode,mode_name,queue,config,npes,node_pes,meta_bytes,track_bytes,scratch_bytes,"
               "scratch_once_bytes,buffer_bytes,min_buffers,max_buffers,max_total_bytes\n");
    }
    long lines = 0;
    for (int mode = 1; mode <= MODE_SCAN; mode++) {
        char buf[32];
        const char *mname = mode_name(mode, buf, sizeof buf);
        for (int k = 0; k < 5; k++) {
            for (int i = 0; i < np; i++) {
                int p = ps[i], n = npn && p >= npn ? npn : p;
                shmemx_queue_model_t m;
                /* a mode that does not fit this queue kind (or this P) is refused: skip */
                if (shmemx_queue_model(&cfg[k].c, mode, p, n, &m) != 0)
                    continue;
                lines++;
                if (shmem_my_pe() != 0)
                    continue;
                printf("%d,%s,%s,%s,%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                       mode, mname, cfg[k].c.qtype == SHMEM_QUEUE_COMM ? "comm" : "data",
                       cfg[k].name, p, n, m.meta_bytes, m.track_bytes, m.scratch_bytes,
                       m.scratch_once_bytes, m.buffer_bytes, m.min_buffers, m.max_buffers,
                       m.max_total_bytes);
            }
        }
    }
    shmem_finalize();
    if (lines == 0) {
        fprintf(stderr, "model: shmemx_queue_model refused every mode\n");
        return 1;
    }
    return 0;
}
