// CFWNetlink implementation. See include/CFWNetlink.h.

#define _GNU_SOURCE
#include "CFWNetlink.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fw_netlink_socket(uint32_t groups) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_nl local;
    memset(&local, 0, sizeof(local));
    local.nl_family = AF_NETLINK;
    local.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

ssize_t fw_netlink_send(int fd, const void *bytes, size_t length) {
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof(kernel));
    kernel.nl_family = AF_NETLINK;
    return sendto(fd, bytes, length, 0, (struct sockaddr *)&kernel, sizeof(kernel));
}

ssize_t fw_netlink_receive(int fd, void *buffer, size_t capacity, uint32_t *sender) {
    struct sockaddr_nl from;
    memset(&from, 0, sizeof(from));
    socklen_t length = sizeof(from);
    ssize_t count = recvfrom(fd, buffer, capacity, MSG_TRUNC, (struct sockaddr *)&from, &length);
    if (count >= 0) {
        *sender = from.nl_pid;
    }
    return count;
}

int fw_poll_readable(int fd, int timeout_ms) {
    struct pollfd entry = { .fd = fd, .events = POLLIN, .revents = 0 };
    return poll(&entry, 1, timeout_ms);
}
