// IPAddress: bytes from socket addresses, prefix matching at every bit boundary, text.

import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("10.1.2.3", [10, 1, 2, 3] as [UInt8]),
        ("::1", [UInt8](repeating: 0, count: 15) + [1]),
        ("2001:db8::ff", [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [0xff]),
    ])
    func bytesOfASocketAddress(text: String, bytes: [UInt8]) throws {
        let address = IPAddress(try #require(SocketAddress(numericHost: text, port: 443)))
        #expect(address.bytes == bytes)
        #expect(address.description == text)
    }

    @Test(arguments: [
        ("10.1.2.3", "10.1.0.0", 16, true),
        ("10.1.2.3", "10.1.0.0", 24, false),
        ("10.1.2.3", "0.0.0.0", 0, true),
        ("10.1.2.3", "10.1.2.3", 32, true),
        ("10.1.2.3", "10.1.2.2", 31, true),
        ("10.1.2.3", "10.1.2.2", 32, false),
        ("10.1.2.3", "10.0.0.0", 9, true),
        ("10.1.2.3", "10.128.0.0", 9, false),
        ("10.1.2.3", "::", 0, false),
        ("10.1.2.3", "10.1.2.3", 33, false),
        ("10.1.2.3", "10.1.2.3", -1, false),
        ("2001:db8::1", "2001:db8::", 32, true),
        ("2001:db8::1", "2001:db9::", 32, false),
        ("2001:db8::1", "2001:db9::", 31, true),
        ("fe80::1", "fe80::", 10, true),
        ("::1", "::1", 128, true),
    ])
    func prefixMatching(address: String, prefix: String, length: Int, matches: Bool) {
        #expect(ip(address).matches(ip(prefix), prefixLength: length) == matches)
    }

    @Test func bytesMustFitTheFamily() {
        #expect(IPAddress(family: .ipv4, bytes: [1, 2, 3]) == nil)
        #expect(IPAddress(family: .ipv6, bytes: [1, 2, 3, 4]) == nil)
        #expect(IPAddress(family: .ipv4, bytes: [1, 2, 3, 4])?.description == "1.2.3.4")
    }
}
