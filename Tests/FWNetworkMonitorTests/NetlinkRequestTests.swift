// NetlinkRequest: the exact bytes of the dump requests and of the barrier.

import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct NetlinkRequestTests {
    /// A header with NLM_F_REQUEST | NLM_F_DUMP (0x301), sequence 7 and port 0, then a zeroed family header.
    static func dumpHex(length: String, type: String, familyHeader: Int) -> String {
        length + type + "0103" + "07000000" + "00000000" + String(repeating: "00", count: familyHeader)
    }

    @Test(arguments: [
        (NetlinkRequest.Dump.links, dumpHex(length: "20000000", type: "1200", familyHeader: 16)), // RTM_GETLINK
        (.addresses, dumpHex(length: "18000000", type: "1600", familyHeader: 8)), // RTM_GETADDR
        (.routes, dumpHex(length: "1c000000", type: "1a00", familyHeader: 12)), // RTM_GETROUTE
    ])
    func dumps(_ what: NetlinkRequest.Dump, hex: String) {
        #expect(NetlinkRequest.dump(what, sequence: 7) == NetlinkFixture.bytes(hex: hex))
    }

    @Test func theBarrierIsAnAcknowledgedNoOp() {
        // length 16, NLMSG_NOOP (1), NLM_F_REQUEST | NLM_F_ACK (0x5), sequence 0x01020304, port 0
        let expected = NetlinkFixture.bytes(hex: "10000000" + "0100" + "0500" + "04030201" + "00000000")
        #expect(NetlinkRequest.barrier(sequence: 0x0102_0304) == expected)
    }
}
