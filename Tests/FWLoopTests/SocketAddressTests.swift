// SocketAddress: parsing numeric text, description, equality, sockaddr round trips.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import FWLoop

@Suite struct SocketAddressTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let port: Int
        /// Expected (family, host, description), or nil when the text must be rejected.
        let expected: (SocketAddress.Family, String, String)?

        var testDescription: String {
            "\(text) port \(port)"
        }
    }

    static let cases: [Case] = [
        Case(text: "127.0.0.1", port: 80, expected: (.ipv4, "127.0.0.1", "127.0.0.1:80")),
        Case(text: "0.0.0.0", port: 0, expected: (.ipv4, "0.0.0.0", "0.0.0.0:0")),
        Case(text: "255.255.255.255", port: 65535, expected: (.ipv4, "255.255.255.255", "255.255.255.255:65535")),
        Case(text: "::1", port: 443, expected: (.ipv6, "::1", "[::1]:443")),
        Case(text: "0:0:0:0:0:0:0:1", port: 8080, expected: (.ipv6, "::1", "[::1]:8080")),
        Case(text: "2001:DB8::A", port: 1, expected: (.ipv6, "2001:db8::a", "[2001:db8::a]:1")),
        Case(text: "::ffff:10.0.0.1", port: 2, expected: (.ipv6, "::ffff:10.0.0.1", "[::ffff:10.0.0.1]:2")),
        Case(text: "fe80::1%3", port: 9, expected: (.ipv6, "fe80::1%3", "[fe80::1%3]:9")),
        Case(text: "fe80::1%lo", port: 9, expected: (.ipv6, "fe80::1%\(if_nametoindex("lo"))", "[fe80::1%1]:9")),
        Case(text: "localhost", port: 80, expected: nil),
        Case(text: "example.com", port: 80, expected: nil),
        Case(text: "", port: 80, expected: nil),
        Case(text: "1.2.3", port: 80, expected: nil),
        Case(text: "256.1.1.1", port: 80, expected: nil),
        Case(text: " 127.0.0.1", port: 80, expected: nil),
        Case(text: "[::1]", port: 80, expected: nil),
        Case(text: "fe80::1%", port: 80, expected: nil),
        Case(text: "fe80::1%no-such-interface", port: 80, expected: nil),
        Case(text: "127.0.0.1", port: -1, expected: nil),
        Case(text: "127.0.0.1", port: 65536, expected: nil),
    ]

    @Test(arguments: cases)
    func parsesNumericText(_ testCase: Case) {
        let address = SocketAddress(numericHost: testCase.text, port: testCase.port)
        guard let (family, host, description) = testCase.expected else {
            #expect(address == nil)
            return
        }
        #expect(address?.family == family)
        #expect(address?.host == host)
        #expect(address?.port == testCase.port)
        #expect(address?.description == description)
    }

    @Test(arguments: ["127.0.0.1", "10.1.2.3", "::1", "2001:db8::1", "fe80::1%7"])
    func roundTripsThroughSockaddr(_ text: String) throws {
        let address = try #require(SocketAddress(numericHost: text, port: 4242))
        let copy = address.withSockAddr { pointer, length in
            #expect(Int(length) == (address.family == .ipv4
                ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size))
            return SocketAddress(pointer)
        }
        #expect(copy == address)
        let moved = address.withSockAddr { pointer, _ in SocketAddress(pointer, port: 7) }
        #expect(moved?.port == 7)
        #expect(moved?.host == address.host)
    }

    @Test func rejectsOtherFamilies() {
        var unix = sockaddr_un()
        unix.sun_family = sa_family_t(AF_UNIX)
        let address = withUnsafePointer(to: &unix) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
        }
        #expect(address == nil)
    }

    @Test func equalityAndHashingFollowCanonicalText() {
        let short = SocketAddress(numericHost: "::1", port: 80)
        let long = SocketAddress(numericHost: "0::0:1", port: 80)
        #expect(short == long)
        #expect(Set([short, long]).count == 1)
        #expect(short != SocketAddress(numericHost: "::1", port: 81))
        let mapped = SocketAddress(numericHost: "::ffff:127.0.0.1", port: 80)
        #expect(SocketAddress(numericHost: "127.0.0.1", port: 80) != mapped)
        #expect(SocketAddress(numericHost: "127.0.0.1", port: 80) != SocketAddress(numericHost: "127.0.0.2", port: 80))
        let loopbackIndex = if_nametoindex("lo")
        let named = SocketAddress(numericHost: "fe80::1%lo", port: 80)
        let numbered = SocketAddress(numericHost: "fe80::1%\(loopbackIndex)", port: 80)
        #expect(named == numbered)
        #expect(Set([named, numbered]).count == 1)
        #expect(named != SocketAddress(numericHost: "fe80::1%\(loopbackIndex + 1)", port: 80))
        #expect(named != SocketAddress(numericHost: "fe80::1", port: 80))
    }

    /// Equality and hashing read only the address, scope and port: what the kernel leaves in the other
    /// fields (IPv4's padding, IPv6's flow label) does not make two addresses differ.
    @Test func equalityIgnoresPaddingAndFlowLabel() {
        var ipv4 = sockaddr_in()
        ipv4.sin_family = sa_family_t(AF_INET)
        ipv4.sin_port = UInt16(8080).bigEndian
        ipv4.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        ipv4.sin_zero = (1, 2, 3, 4, 5, 6, 7, 8)
        let padded = withUnsafePointer(to: &ipv4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
        }
        let plain = SocketAddress(numericHost: "127.0.0.1", port: 8080)
        #expect(padded == plain)
        #expect(Set([padded, plain]).count == 1)
        var ipv6 = sockaddr_in6()
        ipv6.sin6_family = sa_family_t(AF_INET6)
        ipv6.sin6_port = UInt16(443).bigEndian
        ipv6.sin6_flowinfo = 0x1234
        #expect(inet_pton(AF_INET6, "::1", &ipv6.sin6_addr) == 1)
        let labelled = withUnsafePointer(to: &ipv6) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
        }
        #expect(labelled == SocketAddress(numericHost: "::1", port: 443))
        #expect(labelled?.host == "::1")
    }
}
