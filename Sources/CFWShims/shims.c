// CFWShims implementation. See include/CFWShims.h.

#define _GNU_SOURCE
#include "CFWShims.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

// MARK: - FWLoop

int fw_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int fw_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = events;
    event.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &event);
}

int fw_epoll_wait(int epfd, fw_epoll_event *out, int max, int timeout_ms) {
    enum { batch = 64 };
    struct epoll_event raw[batch];
    int count = epoll_wait(epfd, raw, max < batch ? max : batch, timeout_ms);
    for (int i = 0; i < count; i++) {
        out[i].events = raw[i].events;
        out[i].data = raw[i].data.u64;
    }
    return count;
}

int fw_eventfd_create(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int fw_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
}

int fw_timerfd_set(int fd, uint64_t deadline_ns) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)(deadline_ns / 1000000000u);
    spec.it_value.tv_nsec = (long)(deadline_ns % 1000000000u);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

int fw_socket_stream(int family) {
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
}

int fw_pthread_setname(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof(truncated) - 1);
    truncated[sizeof(truncated) - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}

int fw_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? count : 1;
}
