/* Writes the seed corpora of the fuzz targets: OUT/<target>/<name>.
 * usage: make_seeds OUT TESTDATA
 * Rank files and meta.json come from the real writers (so seeds cover
 * every field the format has); text inputs are the tests' data files with
 * the target's selector byte in front. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "format/codec.h"
#include "mpicast/format.h"
#include "mpicast/platform.h"

static const char *out_dir;

static void die(const char *what)
{
    fprintf(stderr, "make_seeds: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void put_seed(const char *target, const char *name, unsigned char sel, int use_sel,
                     const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, target);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (use_sel && fputc(sel, f) == EOF) || (len && fwrite(data, 1, len, f) != len) ||
        fclose(f) != 0)
        die(path);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path);
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096)))
            die("realloc");
        size_t got = fread(buf + *len, 1, cap - *len, f);
        if (got == 0)
            break;
        *len += got;
    }
    fclose(f);
    return buf;
}

/* The decompressed payload and event count of the first chunk of a file. */
static unsigned char *first_payload(const unsigned char *file, size_t len, size_t *plen,
                                    uint32_t *nevents)
{
    const unsigned char *h = file + MC_FILE_HEADER_SIZE;
    if (len < MC_FILE_HEADER_SIZE + MC_CHUNK_HEADER_SIZE)
        return NULL;
    *nevents = mc_get_u32(h + 4);
    *plen = mc_get_u32(h + 8);
    unsigned char *raw = malloc(*plen + 1);
    size_t n = ZSTD_decompress(raw, *plen, h + MC_CHUNK_HEADER_SIZE, mc_get_u32(h + 12));
    if (ZSTD_isError(n) || n != *plen)
        die("zstd");
    return raw;
}

static mc_event ev(int op, int peer, int tag, int64_t bytes, int64_t t)
{
    mc_event e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.peer = peer;
    e.tag = tag;
    e.peer2 = e.tag2 = MC_NONE;
    e.bytes = bytes;
    e.t_start = t;
    e.t_end = t + 100;
    e.cpu = -1;
    return e;
}

/* Rank `rank` of a small two-rank program using most event shapes. */
static void write_rank(const char *dir, int rank)
{
    mc_error err = {0};
    mc_writer *w = mc_writer_open(dir, rank, MC_WRITER_CPU, 0, &err);
    if (!w)
        die(err.msg);
    int peer = 1 - rank;
    int64_t done[4] = {1, peer, 7, 64}, members[2] = {0, 1};
    mc_event list[16];
    int n = 0;
    list[n++] = ev(MC_OP_INIT, MC_NONE, MC_NONE, 0, -50);
    list[n] = ev(MC_OP_IRECV, MC_ANY, MC_ANY, 64, 1000);
    list[n++].req = 1;
    list[n++] = ev(MC_OP_SEND, peer, 7, 64, 2000);
    list[n] = ev(MC_OP_WAIT, MC_NONE, MC_NONE, 0, 3000);
    list[n].nvals = 4;
    list[n++].vals = done;
    list[n] = ev(MC_OP_SENDRECV, peer, 3, 8, 4000);
    list[n].peer2 = peer;
    list[n].tag2 = 3;
    list[n++].bytes2 = 8;
    list[n] = ev(MC_OP_ALLREDUCE, MC_NONE, MC_NONE, 16, 5000);
    list[n].peer2 = 2;
    list[n++].bytes2 = 16;
    list[n] = ev(MC_OP_COMM_DUP, MC_NONE, MC_NONE, 0, 6000);
    list[n].peer2 = 2;
    list[n].newcomm = 1ull << 32;
    list[n].nvals = 2;
    list[n++].vals = members;
    list[n] = ev(MC_OP_BCAST, 0, MC_NONE, 32, 7000);
    list[n].comm = 1ull << 32;
    list[n].peer2 = 2;
    list[n++].bytes2 = 32;
    list[n] = ev(MC_OP_COMM_FREE, MC_NONE, MC_NONE, 0, 8000);
    list[n++].comm = 1ull << 32;
    list[n++] = ev(MC_OP_FINALIZE, MC_NONE, MC_NONE, 0, 9000);
    for (int i = 0; i < n; i++) {
        list[i].site = 100 + i;
        list[i].cpu = 40;
        if (i == n - 1) { /* a loop record (mpicast compress): 3 x (Barrier, Allreduce) */
            int64_t times[6] = {100, 20, 40, 60, 30, 30};
            mc_loop_record l = {.iterations = 3, .period = 2, .cpu = 1, .at = 8500,
                                .loop_end = 8900, .times = times};
            mc_event b = ev(MC_OP_BARRIER, MC_NONE, MC_NONE, 0, 8600);
            mc_event a = ev(MC_OP_ALLREDUCE, MC_NONE, MC_NONE, 8, 8700);
            a.peer2 = 2;
            a.bytes2 = 8;
            b.cpu = a.cpu = 40;
            if (mc_writer_add_loop(w, &l, &err) || mc_writer_add(w, &b, &err) ||
                mc_writer_add(w, &a, &err))
                die(err.msg);
        }
        if (mc_writer_add(w, &list[i], &err))
            die(err.msg);
    }
    if (mc_writer_close(w, &err))
        die(err.msg);
}

static void rank_seeds(void)
{
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/.trace", out_dir);
    write_rank(dir, 0);
    write_rank(dir, 1);
    size_t len[2], plen[2];
    uint32_t nev[2];
    unsigned char *file[2], *payload[2];
    for (int r = 0; r < 2; r++) {
        mc_rank_path(path, sizeof path, dir, r);
        file[r] = slurp(path, &len[r]);
        payload[r] = first_payload(file[r], len[r], &plen[r], &nev[r]);
    }
    put_seed("rank_file", "raw", 0, 1, file[0], len[0]);
    unsigned char *buf = malloc(4 + plen[0] + plen[1]);
    buf[0] = (unsigned char)nev[0];
    memcpy(buf + 1, payload[0], plen[0]);
    put_seed("rank_file", "payload", 3, 1, buf, plen[0] + 1);
    /* replay: counts, rank 0's payload length, both payloads */
    buf[0] = (unsigned char)nev[0];
    buf[1] = (unsigned char)nev[1];
    buf[2] = (unsigned char)plen[0];
    memcpy(buf + 3, payload[0], plen[0]);
    memcpy(buf + 3 + plen[0], payload[1], plen[1]);
    put_seed("replay", "binary", 1, 1, buf, 3 + plen[0] + plen[1]);
    put_seed("replay", "binary-free", 3, 1, buf, 3 + plen[0] + plen[1]);
    free(buf);
    for (int r = 0; r < 2; r++) {
        free(file[r]);
        free(payload[r]);
    }
}

static void meta_seeds(void)
{
    mc_error err = {0};
    mc_meta *m = mc_meta_create(4);
    int32_t members[] = {0, 2, 1, 3};
    mc_meta_set(m, "command", "mpirun -np 4 ./cg", &err);
    mc_meta_set(m, "mpi_library", "Open MPI 4.1", &err);
    mc_meta_add_comm(m, 1ull << 32, members, 4, 4, &err);
    mc_meta_add_comm(m, 2ull << 32 | 1, members + 2, 2, 1, &err);
    mc_meta_site s = {42, "/bin/cg", 0x1234, "main", "cg.c", 17};
    mc_meta_add_site(m, &s, &err);
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/.meta", out_dir);
    mkdir(dir, 0755);
    if (mc_meta_write(m, dir, &err))
        die(err.msg);
    mc_meta_destroy(m);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    size_t len;
    unsigned char *data = slurp(path, &len);
    put_seed("meta", "written", 0, 0, data, len);
    free(data);
    static const char minimal[] = "{\"format_version\": 1, \"ranks\": 2}";
    put_seed("meta", "minimal", 0, 0, minimal, sizeof minimal - 1);
}

static void platform_seeds(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.default.ini", out_dir);
    mc_error err = {0};
    mc_platform *p = mc_platform_create();
    if (mc_platform_write(p, path, &err))
        die(err.msg);
    mc_platform_destroy(p);
    size_t len;
    unsigned char *data = slurp(path, &len);
    put_seed("platform", "default", 0, 1, data, len);
    free(data);
    static const char small[] = "[network]\nlatency = 1.5us\nbandwidth = 10GB/s\n"
                                "eager_limit = 64KiB\n[cpu]\nspeed = 2\n";
    put_seed("platform", "small", 0, 1, small, sizeof small - 1);
    static const char set[] = "network.bandwidth=100Mb/s";
    put_seed("platform", "set", 1, 1, set, sizeof set - 1);
}

/* Every file of TESTDATA/sub ending in `ext`, with selector `sel`. */
static void data_seeds(const char *data_dir, const char *sub, const char *ext, const char *target,
                       unsigned char sel, int use_sel)
{
    char dir[4096], path[8300], name[300];
    snprintf(dir, sizeof dir, "%s/%s", data_dir, sub);
    DIR *d = opendir(dir);
    if (!d)
        die(dir);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name), e = strlen(ext);
        if (n <= e || strcmp(de->d_name + n - e, ext) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t len;
        unsigned char *data = slurp(path, &len);
        if (memchr(data, '/', len) && strcmp(target, "model") != 0 &&
            strcmp(target, "dumpi") != 0) {
            free(data); /* the trace targets skip inputs with paths */
            continue;
        }
        snprintf(name, sizeof name, "%s-%u", de->d_name, sel);
        put_seed(target, name, sel, use_sel, data, len);
        free(data);
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_seeds OUT TESTDATA\n");
        return 2;
    }
    out_dir = argv[1];
    mkdir(out_dir, 0755);
    rank_seeds();
    meta_seeds();
    platform_seeds();
    data_seeds(argv[2], "tit", ".txt", "tit", 0, 0);
    data_seeds(argv[2], "tit", ".list", "tit", 0, 0);
    data_seeds(argv[2], "tit", ".txt", "replay", 0, 1);
    data_seeds(argv[2], "tit", ".txt", "replay", 2, 1);
    data_seeds(argv[2], "model", ".csv", "model", 0, 1);
    data_seeds(argv[2], "model", ".csv", "model", 4, 1);
    data_seeds(argv[2], "model", ".txt", "model", 1, 1);
    data_seeds(argv[2], "model", ".txt", "model", 9, 1);
    data_seeds(argv[2], "model", ".json", "model", 2, 1);
    data_seeds(argv[2], "model/tau/p2", ".0", "model", 16, 1); /* TAU profiles */
    data_seeds(argv[2], "model/tau/bad", ".0", "model", 16, 1);
    static const char scaling[] = "p,n,tau,gamma\n1,1000,10,10\n2,1000,5.4,10.8\n"
                                  "4,1000,2.9,11.6\n8,1000,1.7,13.6\n1,4000,40,40\n"
                                  "2,4000,20.5,41\n4,4000,10.6,42.4\n8,4000,5.7,45.6\n";
    put_seed("model", "scaling", 3, 1, scaling, sizeof scaling - 1);
    static const char rules[] = "# rules of a 2-D stencil\ngrid 8x8\nperiodic 1,0\n"
                                "scaling strong\nsize.p2p surface\nsize.reduce const\n"
                                "size.block 1/comm\ncompute volume/comm\ninfer no\nndims 2\n";
    put_seed("extrap_rules", "rules", 0, 0, rules, sizeof rules - 1);
    static const char rep[] = "replicate 3\nscaling weak\n";
    put_seed("extrap_rules", "replicate", 0, 0, rep, sizeof rep - 1);
    /* DUMPI: each fixture's rank 0 as a 1-rank trace (selector 0) */
    static const char *const dumpi_dirs[] = {"dumpi/ring", "dumpi/cg", "dumpi/master_worker"};
    for (size_t i = 0; i < sizeof dumpi_dirs / sizeof *dumpi_dirs; i++)
        data_seeds(argv[2], dumpi_dirs[i], "-0000.bin", "dumpi", 0, 1);
    static const char prof[] =
        "# mpicast cpu profile 1\nmeta\ttool\tseed\nmeta\tsample_rate\t1\n"
        "meta\tsource\tseed\nblock\ta.c:10\ta.c:20\t0\t10\t100000\t30000\t10000\n"
        "rd\ta.c:10\ta.c:20\t0\td\t64\t512\t1:20000,2:5000,16:3000,23:1000,512:8000\n"
        "rd\ta.c:10\ta.c:20\t0\ti\t64\t40\t1:99000,4:900\n";
    put_seed("cpu_profile", "one-block", 0, 0, prof, sizeof prof - 1);
    return 0;
}
