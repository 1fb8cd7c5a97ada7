// Counting heap allocations on the calling thread, for the allocations-per-response figures of
// bench-parser. The package defines malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign
// itself (they forward to glibc's __libc_* entry points), so every allocation the process makes, the Swift
// runtime's included, passes through a counter that only the thread between start and stop sees.

#ifndef C_MALLOC_COUNTER_H
#define C_MALLOC_COUNTER_H

#include <stdint.h>

/// Resets this thread's allocation counter to zero and starts counting.
void mc_start(void);

/// Stops counting on this thread and returns the allocations counted since mc_start.
uint64_t mc_stop(void);

/// True (1) when the interposed malloc is the one the process really calls (checked with a probe).
int mc_is_active(void);

#endif
