// NetlinkSocket against the kernel of the test's own network namespace: the dump, the barrier's answer, a
// failed request's error, request numbers.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

import FWLoop
import TestSupport
@testable import FWNetworkMonitor

@Suite struct NetlinkSocketTests {
    /// Reads from `socket` until a datagram arrives (bounded).
    static func nextMessages(_ socket: NetlinkSocket) throws -> [NetlinkMessage] {
        let deadline = Deadline.now() + .seconds(5)
        while Deadline.now() < deadline {
            if let messages = try socket.receive() {
                return messages
            }
            _ = try Syscall.pollReadable(socket.fd, timeoutMilliseconds: 100)
        }
        throw TimedOut(what: "a datagram from the kernel")
    }

    @Test func theDumpHasTheLoopbackInterfaceAndItsRoutes() throws {
        let view = try NetlinkSocket.dumpView(classify: { _ in .other })
        let loopback = try #require(view.links.values.first { $0.link.isLoopback })
        #expect(loopback.link.name == "lo")
        #expect(view.addresses.contains { $0.index == loopback.link.index && $0.address == ip("127.0.0.1") })
        #expect(view.path(to: ip("127.0.0.1")).interface?.name == "lo")
    }

    @Test func theBarrierIsAcknowledged() throws {
        let socket = try NetlinkSocket(groups: 0)
        let sequence = socket.nextSequence()
        #expect(try socket.send(NetlinkRequest.barrier(sequence: sequence)))
        #expect(try Self.nextMessages(socket) == [.error(sequence: sequence, errno: 0)])
    }

    @Test func aFailedRequestAnswersWithItsErrno() throws {
        let socket = try NetlinkSocket(groups: 0)
        // RTM_GETLINK with NLM_F_ACK for interface index 999999, which does not exist.
        var request = NetlinkRequest.barrier(sequence: 41)
        request.replaceSubrange(0..<8, with: [32, 0, 0, 0, 18, 0, 5, 0])
        request += [0, 0, 0, 0] + withUnsafeBytes(of: Int32(999_999)) { Array($0) } + [UInt8](repeating: 0, count: 8)
        #expect(try socket.send(request))
        #expect(try Self.nextMessages(socket) == [.error(sequence: 41, errno: ENODEV)])
    }

    @Test func nothingWaitingIsNil() throws {
        let socket = try NetlinkSocket(groups: 0)
        #expect(try socket.receive() == nil)
        #expect(try !Syscall.pollReadable(socket.fd, timeoutMilliseconds: 0))
    }

    @Test func requestNumbersStartAtOneAndCount() throws {
        let socket = try NetlinkSocket(groups: 0)
        #expect((socket.nextSequence(), socket.nextSequence(), socket.nextSequence()) == (1, 2, 3))
    }

    @Test func closingTwiceIsHarmless() throws {
        let socket = try NetlinkSocket(groups: 0)
        socket.close()
        socket.close()
        #expect(socket.fd == -1)
    }
}
