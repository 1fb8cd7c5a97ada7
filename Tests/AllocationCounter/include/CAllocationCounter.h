// Counting heap allocations process-wide, for Tests/AllocationBudget. The target defines malloc, calloc,
// realloc, posix_memalign, aligned_alloc and memalign itself (each forwards to glibc's __libc_* entry
// point), so every allocation of the process, the Swift runtime's and Foundation's included, passes through
// one counter. Only the AllocationBudget executable links this target: no library or test bundle does.

#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Resets the process-wide counter to zero and starts counting on every thread.
void ac_start(void);

/// Stops counting and returns the allocations counted since ac_start.
uint64_t ac_stop(void);

/// Leaves the calling thread out of the count for the rest of its life (the loopback server's thread).
void ac_ignore_this_thread(void);

/// True (1) when the interposed malloc is the one the process really calls (checked with a probe).
int ac_is_active(void);

#endif
