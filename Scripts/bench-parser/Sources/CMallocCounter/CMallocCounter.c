// Allocation counting by interposition: this file defines the allocation functions of the C library, so
// the dynamic linker binds every caller in the process (libswiftCore included) to these definitions. Each
// forwards to glibc's __libc_* implementation, which is exported for exactly this purpose and, unlike
// dlsym(RTLD_NEXT, ...), needs no bootstrap buffer (dlsym may itself call calloc). Counting is per thread
// (a __thread flag and counter), so the benchmark counts only its own thread's work.

#include "CMallocCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread int counting;
static __thread uint64_t allocations;

static inline void count_one(void) {
    if (counting) {
        allocations += 1;
    }
}

// MARK: - Counter

void mc_start(void) {
    allocations = 0;
    counting = 1;
}

uint64_t mc_stop(void) {
    counting = 0;
    return allocations;
}

int mc_is_active(void) {
    mc_start();
    void *volatile probe = malloc(24);
    free(probe);
    return mc_stop() == 1;
}

// MARK: - Interposed allocation functions

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
        return EINVAL;
    }
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}
