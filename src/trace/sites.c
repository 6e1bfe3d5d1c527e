/* mpicast tracer — call sites: return address → 31-bit id, stable across
 * ranks running the same binary (a hash of module name and offset). */
#include "tracer.h"
#include "map.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct site {
    int32_t id;
    void *addr;
    const char *module; /* from dladdr: lives as long as the module */
    uint64_t offset;
} site;

static mct_map by_addr; /* return address → index + 1 into sites */
static site *sites;
static size_t nsites, sites_cap;

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The module's base name (not its path) so that ranks started through
 * different relative paths agree. */
static int32_t site_hash(const char *module, uint64_t offset)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *b = base_name(module);
    h = fnv1a(h, b, strlen(b));
    h = fnv1a(h, &offset, sizeof offset);
    int32_t id = (int32_t)((h ^ (h >> 31) ^ (h >> 62)) & 0x7fffffff);
    return id ? id : 1;
}

/* dladdr names the main program as it was started ("./a.out"): make it
 * absolute for meta.json. Paths are interned (few modules). */
/* The running program's own file when `name` is its bare name: dladdr
 * names the main program as it was started, and a program found through
 * PATH (`mpirun -np 4 lmp`) is not in the working directory, where
 * realpath would look for it (its sites then had no file:line). */
static int self_exe(const char *name, char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *base = strrchr(buf, '/');
    return strcmp(base ? base + 1 : buf, name) == 0;
}

static const char *module_path(const char *name)
{
    static char *seen[64];
    static int nseen;
    char buf[4096];
    const char *path = name;
    if (name[0] != '/' &&
        (strchr(name, '/') ? realpath(name, buf) != NULL : self_exe(name, buf, sizeof buf)))
        path = buf;
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i], path) == 0)
            return seen[i];
    if (path == name || nseen == 64)
        return name;
    char *copy = strdup(path);
    if (!copy)
        return name;
    seen[nseen++] = copy;
    return copy;
}

static int32_t add_site(void *ret)
{
    Dl_info info;
    const char *module = "?";
    uint64_t offset = (uint64_t)(uintptr_t)ret;
    if (dladdr(ret, &info) && info.dli_fname) {
        module = module_path(info.dli_fname);
        offset = (uint64_t)((uintptr_t)ret - (uintptr_t)info.dli_fbase);
    }
    if (nsites == sites_cap) {
        size_t cap = sites_cap ? sites_cap * 2 : 64;
        site *s = realloc(sites, cap * sizeof *s);
        if (!s) {
            mct_fail("out of memory for the call-site table");
            return 0;
        }
        sites = s;
        sites_cap = cap;
    }
    mct_slot *slot = mct_map_put(&by_addr, (uint64_t)(uintptr_t)ret);
    if (!slot) {
        mct_fail("out of memory for the call-site table");
        return 0;
    }
    site *s = &sites[nsites++];
    s->addr = ret;
    s->module = module;
    s->offset = offset;
    s->id = site_hash(module, offset);
    slot->a = (uint64_t)s->id;
    return s->id;
}

/* MPI's own Fortran glue (Open MPI's mpi_f08 module procedures, MPICH's
 * Fortran library) can sit between the user's call and our wrapper; a site
 * there would name the MPI function, not the call. Such addresses are
 * cached with this flag instead of an id. */
#define LAYER_FLAG (1ull << 32)

static int layer_module(const char *name)
{
    const char *b = base_name(name);
    return strncmp(b, "libmpi_usempif08", 16) == 0 || strncmp(b, "libmpichfort", 12) == 0;
}

static int is_layer(void *addr)
{
    mct_slot *slot = mct_map_find(&by_addr, (uint64_t)(uintptr_t)addr);
    if (slot)
        return (slot->a & LAYER_FLAG) != 0;
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname || !layer_module(info.dli_fname))
        return 0;
    slot = mct_map_put(&by_addr, (uint64_t)(uintptr_t)addr);
    if (slot)
        slot->a = LAYER_FLAG;
    return 1;
}

/* The first caller outside the glue, from a stack walk (only for calls
 * that came through the glue: a few hundred ns more each). */
static void *caller_outside_layer(void *ret)
{
    void *frames[32];
    int n = backtrace(frames, 32), k = 0;
    while (k < n && frames[k] != ret)
        k++;
    while (k < n && is_layer(frames[k]))
        k++;
    return k < n ? frames[k] : NULL;
}

/* A per-thread cache of return address -> id in front of the locked
 * table: a program's MPI calls come from a handful of sites, so this saves
 * the lock and the hash probe on nearly every call. Only direct hits are
 * cached: a site reached through MPI's Fortran glue depends on the stack. */
#define SITE_CACHE 32
typedef struct site_cache_entry {
    void *ret;
    int32_t id;
} site_cache_entry;
static MCT_TLS site_cache_entry site_cache[SITE_CACHE];

static unsigned site_cache_slot(void *ret)
{
    uintptr_t a = (uintptr_t)ret;
    return (unsigned)((a >> 3) ^ (a >> 9)) & (SITE_CACHE - 1);
}

static int32_t site_lookup(void *ret);

MCT_TLS void *mct_last_ret;
MCT_TLS int32_t mct_last_site;

int32_t mct_site_of(void *ret)
{
    if (!ret)
        return 0;
    site_cache_entry *c = &site_cache[site_cache_slot(ret)];
    if (c->ret == ret) {
        mct_last_ret = ret;
        mct_last_site = c->id;
        return c->id;
    }
    return site_lookup(ret);
}

static int32_t site_lookup(void *ret)
{
    mct_lock();
    mct_slot *slot = mct_map_find(&by_addr, (uint64_t)(uintptr_t)ret);
    if (!slot && is_layer(ret))
        slot = mct_map_find(&by_addr, (uint64_t)(uintptr_t)ret);
    if (slot && (slot->a & LAYER_FLAG)) {
        ret = caller_outside_layer(ret);
        slot = ret ? mct_map_find(&by_addr, (uint64_t)(uintptr_t)ret) : NULL;
        if (!ret) {
            mct_unlock();
            return 0;
        }
    }
    int32_t id = slot ? (int32_t)slot->a : add_site(ret);
    mct_unlock();
    if (id != 0) {
        site_cache_entry *c = &site_cache[site_cache_slot(ret)];
        c->ret = ret;
        c->id = id;
    }
    return id;
}

/* The function around `offset` in a module's ELF symbol table (.symtab,
 * else .dynsym): dladdr sees only exported symbols, which leaves out every
 * function of a program not linked with -rdynamic. Runs at finalize only. */
static const char *elf_function(const char *path, uint64_t offset, uintptr_t addr,
                                char *out, size_t len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *map = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    const char *result = NULL;
    size_t size = (size_t)st.st_size;
    const unsigned char *base = map;
    const Elf64_Ehdr *eh = map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
        goto done;
    /* A non-PIE executable's symbols hold absolute addresses. */
    uint64_t want = eh->e_type == ET_EXEC ? (uint64_t)addr : offset;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
    for (int pass = 0; pass < 2 && !result; pass++) {
        uint32_t type = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
        for (unsigned i = 0; i < eh->e_shnum && !result; i++) {
            if (sh[i].sh_type != type || sh[i].sh_link >= eh->e_shnum ||
                sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
                continue;
            const Elf64_Shdr *strs = &sh[sh[i].sh_link];
            if (strs->sh_offset > size || strs->sh_size > size - strs->sh_offset)
                continue;
            const Elf64_Sym *sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
            size_t n = sh[i].sh_size / sizeof *sym;
            for (size_t k = 0; k < n; k++) {
                if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_name == 0 ||
                    sym[k].st_name >= strs->sh_size)
                    continue;
                if (want < sym[k].st_value || want >= sym[k].st_value + sym[k].st_size)
                    continue;
                const char *name = (const char *)base + strs->sh_offset + sym[k].st_name;
                size_t max = strs->sh_size - sym[k].st_name;
                snprintf(out, len, "%.*s", (int)strnlen(name, max), name);
                result = out;
                break;
            }
        }
    }
done:
    munmap(map, size);
    return result;
}

static const char *function_of(const site *s, char *buf, size_t len)
{
    Dl_info info;
    if (dladdr(s->addr, &info) && info.dli_sname && *info.dli_sname)
        return info.dli_sname;
    /* The return address may sit just past the function's last byte (a
     * call to a noreturn function): look up the call instruction instead. */
    const char *fn = elf_function(s->module, s->offset - 1, (uintptr_t)s->addr - 1, buf, len);
    return fn ? fn : "";
}

/* One line per site: id module offset function file line, tab-separated so
 * that paths with spaces survive; empty fields are "-". */
static int site_line(char *buf, size_t len, const site *s)
{
    char name[512];
    const char *fn = function_of(s, name, sizeof name);
    return snprintf(buf, len, "%" PRId32 "\t%s\t0x%" PRIx64 "\t%s\t-\t0\n", s->id, s->module,
                    s->offset, *fn ? fn : "-");
}

int mct_sites_write(const char *dir, int rank)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/sites-%06d.txt", dir, rank);
    /* Fresh and owner-only, like the rank file: never through a symlink. */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char line[8192];
    for (size_t i = 0; i < nsites; i++) {
        site_line(line, sizeof line, &sites[i]);
        fputs(line, fp);
    }
    return fclose(fp) == 0 ? 0 : -1;
}

char *mct_sites_serialise(size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    char line[8192];
    for (size_t i = 0; buf && i < nsites; i++) {
        int k = site_line(line, sizeof line, &sites[i]);
        if (k < 0 || (size_t)k >= sizeof line)
            continue;
        if (n + (size_t)k + 1 > cap) {
            char *b = realloc(buf, cap = (cap + (size_t)k) * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
        }
        memcpy(buf + n, line, (size_t)k);
        n += (size_t)k;
    }
    *len = buf ? n : 0;
    return buf;
}

static char *next_field(char **p, char *end)
{
    char *s = *p;
    while (*p < end && **p != '\t' && **p != '\n')
        (*p)++;
    if (*p < end)
        *(*p)++ = 0;
    return s;
}

void mct_sites_parse_into(const char *buf, size_t len, mc_meta *m)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, buf, len);
    copy[len] = 0;
    char *p = copy, *end = copy + len;
    while (p < end) {
        char *f[6];
        for (int i = 0; i < 6; i++)
            f[i] = next_field(&p, end);
        mc_meta_site s = {
            .id = (int32_t)strtol(f[0], NULL, 10),
            .module = f[1],
            .offset = strtoull(f[2], NULL, 16),
            .function = strcmp(f[3], "-") ? f[3] : "",
            .file = strcmp(f[4], "-") ? f[4] : "",
            .line = (int)strtol(f[5], NULL, 10),
        };
        mc_error err = {0};
        if (s.id != 0)
            mc_meta_add_site(m, &s, &err);
    }
    free(copy);
}
