// The netlink calls of the network-change monitor, through the chokepoint's rules (Syscall.swift).

import CFWNetlink
import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Syscall {
    /// A non-blocking, close-on-exec `NETLINK_ROUTE` socket joined to the legacy multicast `groups`.
    static func netlinkSocket(groups: UInt32) throws(IOError) -> Int32 {
        try runNeverBlocking("socket(AF_NETLINK)") { fw_netlink_socket(groups) }
    }

    /// Sends one request to the kernel; would-block means the socket's send buffer is full.
    static func netlinkSend(_ fd: Int32, _ bytes: [UInt8]) throws(IOError) -> IOResult<Int> {
        try run("sendto(netlink)") { bytes.withUnsafeBytes { fw_netlink_send(fd, $0.baseAddress, $0.count) } }
    }

    /// Receives one datagram into `buffer`: its full length (larger than the buffer when it was truncated)
    /// and the sender's port id (0 for the kernel). `ENOBUFS` (the kernel dropped messages for want of
    /// room) is thrown like any other error.
    static func netlinkReceive(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(IOError) -> IOResult<(count: Int, sender: UInt32)> {
        var sender: UInt32 = 0
        switch try run("recvfrom(netlink)", { fw_netlink_receive(fd, buffer.baseAddress, buffer.count, &sender) }) {
        case .processed(let count):
            return .processed((count, sender))
        case .wouldBlock:
            return .wouldBlock
        }
    }

    /// Waits up to `timeoutMilliseconds` for `fd` to become readable; false when the time ran out. A
    /// signal ends the wait early as "not yet" (the caller checks its own deadline).
    static func pollReadable(_ fd: Int32, timeoutMilliseconds: Int32) throws(IOError) -> Bool {
        let result = fw_poll_readable(fd, timeoutMilliseconds)
        if result == -1 {
            let error = Glibc.errno
            if error == EINTR {
                return false
            }
            throw failure(error, "poll")
        }
        return result > 0
    }
}
