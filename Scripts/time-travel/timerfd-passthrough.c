// Preloaded before libfaketime by Scripts/time-travel.sh.
//
// libfaketime 0.9.10 (Debian 12) rewrites the deadline of every absolute timerfd_settime as if the
// monotonic clock were faked, even under FAKETIME_DONT_FAKE_MONOTONIC=1: the kernel then gets a deadline
// a day (or five years) in the past, refuses it with EINVAL, and every libdispatch timer (asyncAfter,
// DispatchSourceTimer) stops firing. Only the wall clock should move, so these two calls go straight to
// the kernel, where the real monotonic deadlines they carry belong.
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

int timerfd_settime(int fd, int flags, const struct itimerspec *new_value, struct itimerspec *old_value) {
    return (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
}

int timerfd_gettime(int fd, struct itimerspec *curr_value) {
    return (int)syscall(SYS_timerfd_gettime, fd, curr_value);
}
