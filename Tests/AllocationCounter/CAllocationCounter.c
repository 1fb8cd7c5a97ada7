// Allocation counting by interposition, as Scripts/bench-parser's CMallocCounter does it, but process-wide:
// this file defines the allocation functions of the C library, so the dynamic linker binds every caller
// in the process (libswiftCore, libdispatch and Foundation included) to these definitions. Each forwards
// to glibc's __libc_* implementation, which is exported for exactly this purpose and, unlike
// dlsym(RTLD_NEXT, ...), needs no bootstrap buffer. The count is one relaxed atomic shared by all threads
// (a request's work is spread over the event loop and the delegate queue's threads); a thread can leave
// itself out (the loopback server's).

#include "CAllocationCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static int counting;
static uint64_t allocations;
static __thread int ignored;

static inline void count_one(void) {
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED) && !ignored) {
        __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    }
}

// MARK: - Counter

void ac_start(void) {
    __atomic_store_n(&allocations, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&counting, 1, __ATOMIC_SEQ_CST);
}

uint64_t ac_stop(void) {
    __atomic_store_n(&counting, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&allocations, __ATOMIC_SEQ_CST);
}

void ac_ignore_this_thread(void) {
    ignored = 1;
}

int ac_is_active(void) {
    ac_start();
    void *volatile probe = malloc(24);
    free(probe);
    return ac_stop() >= 1;
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
