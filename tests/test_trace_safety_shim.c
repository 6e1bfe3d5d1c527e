/* LD_PRELOAD shim for tests/test_trace_safety_failures.sh: makes the
 * tracer's own allocations or writes fail, and nothing else's.
 *
 *   MCS_NOMEM_AFTER=N     malloc/calloc/realloc called from the tracer
 *                         library fail (ENOMEM) after N successful ones
 *   MCS_ENOSPC_AFTER=B    write(2) called from the tracer fails with ENOSPC
 *                         once B bytes have been written (a full disk, for
 *                         machines where a small tmpfs cannot be mounted)
 *
 * "From the tracer" = the return address lies in libmpicast-trace*.so,
 * whose address range the constructor finds once all libraries are loaded.
 * The real functions are glibc's __libc_* entry points (no dlsym, which
 * itself allocates). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static uintptr_t lo, hi; /* the tracer's text and data, 0 until known */
static long nomem_after = -1, allocs;
static long long enospc_after = -1, written;

static int find_tracer(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libmpicast-trace"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        if (!lo || a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    return 1;
}

__attribute__((constructor)) static void shim_init(void)
{
    const char *n = getenv("MCS_NOMEM_AFTER");
    const char *w = getenv("MCS_ENOSPC_AFTER");
    dl_iterate_phdr(find_tracer, NULL);
    if (n)
        nomem_after = atol(n);
    if (w)
        enospc_after = atoll(w);
}

static int from_tracer(void *ret)
{
    return lo && (uintptr_t)ret >= lo && (uintptr_t)ret < hi;
}

static int refuse(void *ret)
{
    if (nomem_after < 0 || !from_tracer(ret))
        return 0;
    if (__atomic_fetch_add(&allocs, 1, __ATOMIC_RELAXED) < nomem_after)
        return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return refuse(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t k)
{
    return refuse(__builtin_return_address(0)) ? NULL : __libc_calloc(n, k);
}

void *realloc(void *p, size_t n)
{
    return refuse(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (enospc_after >= 0 && from_tracer(__builtin_return_address(0))) {
        if (written + (long long)n > enospc_after) {
            errno = ENOSPC;
            return -1;
        }
        written += (long long)n;
    }
    return syscall(SYS_write, fd, buf, n);
}
