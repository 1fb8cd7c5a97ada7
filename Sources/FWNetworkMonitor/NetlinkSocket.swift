// NetlinkSocket: a non-blocking NETLINK_ROUTE socket, its receive buffer and its request numbers, plus the
// synchronous dump that builds a NetworkView. Not Sendable: the monitor's loop owns its socket.

import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A route-netlink socket: sends requests to the kernel, receives its datagrams as messages.
final class NetlinkSocket {
    /// The receive buffer: a datagram is at most a few pages (the kernel sizes dump parts to fit one).
    private static let bufferSize = 64 * 1024

    /// The descriptor, or -1 once closed.
    private(set) var fd: Int32
    private var lastSequence: UInt32 = 0
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: NetlinkSocket.bufferSize,
                                                                 alignment: 8)

    /// A socket joined to the multicast `groups` (0: none, for requests only).
    init(groups: UInt32) throws(IOError) {
        fd = try Syscall.netlinkSocket(groups: groups)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// Closes the descriptor (idempotent).
    func close() {
        guard fd >= 0 else {
            return
        }
        Syscall.close(fd)
        fd = -1
    }

    /// A number for the next request; never 0 (the number of notifications).
    func nextSequence() -> UInt32 {
        lastSequence = lastSequence == UInt32.max ? 1 : lastSequence + 1
        return lastSequence
    }

    /// Sends `request`; false when the send buffer is full.
    func send(_ request: [UInt8]) throws(IOError) -> Bool {
        switch try Syscall.netlinkSend(fd, request) {
        case .processed:
            return true
        case .wouldBlock:
            return false
        }
    }

    /// The messages of the next datagram from the kernel, or nil when none is waiting. Datagrams from
    /// anything but the kernel are dropped; a datagram larger than the buffer throws `EMSGSIZE` (its
    /// messages are lost, so the caller must dump again).
    func receive() throws(IOError) -> [NetlinkMessage]? {
        while true {
            switch try Syscall.netlinkReceive(fd, into: buffer) {
            case .wouldBlock:
                return nil
            case .processed(let datagram) where datagram.count > buffer.count:
                throw IOError(errno: EMSGSIZE, call: "recvfrom(netlink)")
            case .processed(let datagram) where datagram.sender == 0:
                return NetlinkParser.messages(in: UnsafeRawBufferPointer(rebasing: buffer[..<datagram.count]))
            case .processed:
                continue
            }
        }
    }

    // MARK: Dumping

    /// The links, addresses and routes of the calling thread's network namespace, read on a socket of its
    /// own (blocking the caller until the kernel answered; it answers at once). Fails with the kernel's
    /// error, or `ETIMEDOUT` when an answer takes longer than `timeout`.
    static func dumpView(timeout: Duration = .seconds(5),
                         classify: (String) -> NetworkInterface.Kind) throws(IOError) -> NetworkView {
        let socket = try NetlinkSocket(groups: 0)
        let deadline = Deadline.now() + timeout
        var view = NetworkView()
        for what in NetlinkRequest.Dump.allCases {
            let sequence = socket.nextSequence()
            guard try socket.send(NetlinkRequest.dump(what, sequence: sequence)) else {
                throw IOError(errno: EAGAIN, call: "sendto(netlink)")
            }
            try socket.readDump(sequence: sequence, deadline: deadline) { message in
                _ = view.apply(message, classify: classify)
            }
        }
        return view
    }

    /// Hands every message of dump `sequence` to `body` until its `NLMSG_DONE`.
    private func readDump(sequence: UInt32, deadline: Deadline,
                          _ body: (NetlinkMessage) -> Void) throws(IOError) {
        while true {
            guard let messages = try receive() else {
                let now = Deadline.now()
                guard now < deadline else {
                    throw IOError(errno: ETIMEDOUT, call: "recvfrom(netlink)")
                }
                let left = (deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1_000_000 + 1
                _ = try Syscall.pollReadable(fd, timeoutMilliseconds: Int32(clamping: left))
                continue
            }
            for message in messages {
                switch message {
                case .done(sequence):
                    return
                case .error(sequence, let error) where error != 0:
                    throw IOError(errno: error, call: "netlink dump")
                default:
                    body(message)
                }
            }
        }
    }
}
