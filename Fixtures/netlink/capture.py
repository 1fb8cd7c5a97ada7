#!/usr/bin/env python3
# Captures the route-netlink datagrams the kernel sends for a scripted sequence of network changes, one
# file per step (STEP.hex: one datagram per line, as hex), for NetlinkParserTests. Run it as root inside a
# fresh network namespace, from this directory:
#
#     unshare --net python3 capture.py
#
# It makes an interface `fw0` (a dummy interface, or an ifb one where the kernel has no dummy driver),
# brings it up, gives it addresses and routes and takes them away again; then sends a barrier (an
# acknowledged no-op) and a request that fails, and records their answers.
import socket
import struct
import subprocess

GROUPS = 0x1 | 0x10 | 0x40 | 0x100 | 0x400  # links, IPv4/IPv6 addresses, IPv4/IPv6 routes

monitor = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
monitor.bind((0, GROUPS))
monitor.settimeout(0.3)


def record(step):
    datagrams = []
    while True:
        try:
            datagrams.append(monitor.recv(65536))
        except socket.timeout:
            break
    with open(f"{step}.hex", "w") as out:
        for datagram in datagrams:
            out.write(datagram.hex() + "\n")


def run(step, command):
    subprocess.run(command, shell=True, check=True)
    record(step)


kind = "dummy" if subprocess.run("ip link add fw0 type dummy 2>/dev/null", shell=True).returncode == 0 else "ifb"
if kind == "ifb":
    subprocess.run("ip link add fw0 type ifb", shell=True, check=True)
record("link-added")
run("link-up", "ip link set fw0 up")
run("address-ipv4-added", "ip addr add 10.1.0.2/24 dev fw0")
run("address-ipv6-added", "ip -6 addr add 2001:db8::2/64 dev fw0 nodad")
run("route-ipv4-default-added", "ip route add default via 10.1.0.1 metric 100")
run("route-ipv6-default-added", "ip -6 route add default via 2001:db8::1")
run("route-unreachable-added", "ip route add unreachable 192.0.2.0/24")
run("route-multipath-added", "ip route add 198.51.100.0/24 nexthop via 10.1.0.1 dev fw0 nexthop dev fw0")
run("route-ipv4-default-removed", "ip route del default")
run("address-ipv4-removed", "ip addr del 10.1.0.2/24 dev fw0")
run("link-down", "ip link set fw0 down")
run("link-removed", "ip link del fw0")
monitor.send(struct.pack("=IHHII", 16, 1, 0x1 | 0x4, 77, 0))  # NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK
record("barrier-acknowledged")
request = struct.pack("=BBHiII", 0, 0, 0, 999, 0, 0)  # ifinfomsg for an interface that does not exist
monitor.send(struct.pack("=IHHII", 16 + len(request), 18, 0x1 | 0x4, 78, 0) + request)  # RTM_GETLINK
record("request-failed")
print(f"captured with interface type {kind}")
