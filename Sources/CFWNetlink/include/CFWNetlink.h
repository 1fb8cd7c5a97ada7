// CFWNetlink: the route-netlink constants and calls of FWNetworkMonitor (the network-change monitor), apart
// from CFWShims so that a module on FWLoop alone (FWHTTP, fwget) carries none of them. libc and the kernel's
// UAPI headers only (Scripts/check-deps.sh refuses any other library's include here).

#ifndef CFWNETLINK_H
#define CFWNETLINK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/types.h>

/// The route-netlink multicast groups the monitor joins: links, IPv4 and IPv6 addresses and routes.
static const uint32_t FW_RTMGRP_MONITOR = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR
    | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;

/// Message types and flags of the netlink header (linux/netlink.h, linux/rtnetlink.h).
static const uint16_t FW_NLMSG_NOOP = NLMSG_NOOP;
static const uint16_t FW_NLMSG_ERROR = NLMSG_ERROR;
static const uint16_t FW_NLMSG_DONE = NLMSG_DONE;
static const uint16_t FW_RTM_NEWLINK = RTM_NEWLINK;
static const uint16_t FW_RTM_DELLINK = RTM_DELLINK;
static const uint16_t FW_RTM_GETLINK = RTM_GETLINK;
static const uint16_t FW_RTM_NEWADDR = RTM_NEWADDR;
static const uint16_t FW_RTM_DELADDR = RTM_DELADDR;
static const uint16_t FW_RTM_GETADDR = RTM_GETADDR;
static const uint16_t FW_RTM_NEWROUTE = RTM_NEWROUTE;
static const uint16_t FW_RTM_DELROUTE = RTM_DELROUTE;
static const uint16_t FW_RTM_GETROUTE = RTM_GETROUTE;
static const uint16_t FW_NLM_F_REQUEST = NLM_F_REQUEST;
static const uint16_t FW_NLM_F_ACK = NLM_F_ACK;
static const uint16_t FW_NLM_F_DUMP = NLM_F_DUMP;
/// Attribute types (IFLA_*, IFA_*, RTA_*) and the bits of the type that are flags, not type.
static const uint16_t FW_NLA_TYPE_MASK = (uint16_t)NLA_TYPE_MASK;
static const uint16_t FW_IFLA_IFNAME = IFLA_IFNAME;
static const uint16_t FW_IFA_ADDRESS = IFA_ADDRESS;
static const uint16_t FW_IFA_LOCAL = IFA_LOCAL;
static const uint16_t FW_RTA_DST = RTA_DST;
static const uint16_t FW_RTA_OIF = RTA_OIF;
static const uint16_t FW_RTA_GATEWAY = RTA_GATEWAY;
static const uint16_t FW_RTA_PRIORITY = RTA_PRIORITY;
static const uint16_t FW_RTA_MULTIPATH = RTA_MULTIPATH;
static const uint16_t FW_RTA_TABLE = RTA_TABLE;
/// Route types and tables (enum rt_class_t, the rtm_type values).
static const uint8_t FW_RTN_UNICAST = RTN_UNICAST;
static const uint8_t FW_RTN_LOCAL = RTN_LOCAL;
static const uint8_t FW_RTN_BROADCAST = RTN_BROADCAST;
static const uint8_t FW_RTN_ANYCAST = RTN_ANYCAST;
static const uint8_t FW_RTN_MULTICAST = RTN_MULTICAST;
static const uint8_t FW_RTN_BLACKHOLE = RTN_BLACKHOLE;
static const uint8_t FW_RTN_UNREACHABLE = RTN_UNREACHABLE;
static const uint8_t FW_RTN_PROHIBIT = RTN_PROHIBIT;
static const uint8_t FW_RTN_THROW = RTN_THROW;
static const uint32_t FW_RT_TABLE_DEFAULT = RT_TABLE_DEFAULT;
static const uint32_t FW_RT_TABLE_MAIN = RT_TABLE_MAIN;
static const uint32_t FW_RT_TABLE_LOCAL = RT_TABLE_LOCAL;
/// Interface flags (net/if.h).
static const uint32_t FW_IFF_UP = IFF_UP;
static const uint32_t FW_IFF_LOOPBACK = IFF_LOOPBACK;
static const uint32_t FW_IFF_RUNNING = IFF_RUNNING;

/// A non-blocking, close-on-exec `NETLINK_ROUTE` socket bound to the legacy multicast `groups` (0: none).
/// Returns -1 and sets errno on failure.
int fw_netlink_socket(uint32_t groups);

/// Sends `length` bytes to the kernel (port 0). Returns the count sent, or -1 with errno set.
ssize_t fw_netlink_send(int fd, const void *bytes, size_t length);

/// Receives one datagram (`MSG_TRUNC`: the result is its full length, which may exceed `capacity`) and
/// stores the sender's port id in `sender` (0: the kernel). Returns -1 with errno set on failure.
ssize_t fw_netlink_receive(int fd, void *buffer, size_t capacity, uint32_t *sender);

/// `poll` for readability of one descriptor. Returns 1 (readable or an error is pending), 0 (timed
/// out), or -1 with errno set.
int fw_poll_readable(int fd, int timeout_ms);

#endif
