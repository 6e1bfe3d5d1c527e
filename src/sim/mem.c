/* Memory helpers of the replay (sim_mem.h). */
#include <stdint.h>
#include <sys/mman.h>
#include "sim_mem.h"

void sim_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (!p || bytes < ((size_t)4 << 20))
        return;
    uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}
