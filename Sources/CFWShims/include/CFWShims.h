// CFWShims: the few libc helpers FWLoop cannot use directly from Swift (epoll, eventfd, sockets, threads;
// netlink is CFWNetlink's). libc only: OpenSSL lives in CFWOpenSSL, zlib in CFWZlib (ARCHITECTURE.md's
// layer table; Scripts/check-deps.sh refuses an OpenSSL include here).

#ifndef CFWSHIMS_H
#define CFWSHIMS_H

#include <stddef.h>
#include <stdint.h>

// MARK: - FWLoop: epoll, eventfd, timerfd, sockets, threads

#include <sys/epoll.h>

/// An epoll event with natural alignment (`struct epoll_event` is packed on x86_64, which Swift
/// imports badly). `data` carries the loop's registration id.
typedef struct {
    uint32_t events;
    uint64_t data;
} fw_epoll_event;

/// EPOLL* flags as constants (the glibc macros name enum members Swift imports with odd types).
static const uint32_t FW_EPOLLIN = EPOLLIN;
static const uint32_t FW_EPOLLOUT = EPOLLOUT;
static const uint32_t FW_EPOLLERR = EPOLLERR;
static const uint32_t FW_EPOLLHUP = EPOLLHUP;
static const uint32_t FW_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t FW_EPOLLONESHOT = EPOLLONESHOT;

/// `epoll_create1(EPOLL_CLOEXEC)`. Returns -1 and sets errno on failure.
int fw_epoll_create(void);

/// `epoll_ctl` with the event built from `events` and `data`. Returns -1 and sets errno on failure.
int fw_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);

/// `epoll_wait` into an array of naturally aligned events, at most 64 per call whatever `max` says.
/// Returns the count, or -1 with errno set.
int fw_epoll_wait(int epfd, fw_epoll_event *out, int max, int timeout_ms);

/// `eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)`. Returns -1 and sets errno on failure.
int fw_eventfd_create(void);

/// `timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)`. Returns -1 and sets errno on failure.
int fw_timerfd_create(void);

/// Arms the timerfd to expire once at `deadline_ns` on CLOCK_MONOTONIC (absolute), or disarms it when
/// `deadline_ns` is 0. Returns -1 and sets errno on failure.
int fw_timerfd_set(int fd, uint64_t deadline_ns);

/// `socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP)`.
int fw_socket_stream(int family);

/// Names the calling thread (truncated to the kernel's 15 bytes). Returns 0 or an error number.
int fw_pthread_setname(const char *name);

/// The CPUs the calling thread may run on (`sched_getaffinity`'s count); 1 when it cannot be read.
int fw_available_cpus(void);

/// A hint to the CPU that the caller spin-waits (x86 `pause`, arm64 `yield`; nothing elsewhere).
static inline void fw_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
