@testable import FWTransport
import Testing

// RFC 1928 and RFC 1929 as rows: the bytes the handshake sends, each answer of the proxy, run four ways by
// TunnelHarness.
@Suite struct SOCKS5HandshakeTests {
    static let alice = ProxyCredentials(user: "alice", password: "secret")
    static let port8080: [UInt8] = [0x1f, 0x90]
    static let nameRequest: [UInt8] = [5, 1, 0, 3, 11] + Array("example.org".utf8) + port8080
    static let boundIPv4: [UInt8] = [5, 0, 0, 1, 10, 0, 0, 1, 0x04, 0x38]
    static let aliceAuthentication: [UInt8] = [1, 5] + Array("alice".utf8) + [6] + Array("secret".utf8)

    static func make(_ host: String = "example.org", credentials: ProxyCredentials? = nil)
        -> @Sendable () -> ProxyTunnel {
        { .socks5(SOCKS5Handshake(target: .init(host: host), port: 8080, credentials: credentials)) }
    }

    static func step(_ answer: [UInt8], _ then: ProxyTunnelAction) -> TunnelStep {
        TunnelStep(answer: answer, then: then)
    }

    static let cases: [TunnelCase] = [
        TunnelCase(name: "no authentication, the proxy resolves the name", make: make(), first: [5, 1, 0],
                   steps: [step([5, 0], .write(nameRequest)), step(boundIPv4, .established(leftover: []))]),
        TunnelCase(name: "username and password", make: make(credentials: alice), first: [5, 2, 0, 2], steps: [
            step([5, 2], .write(aliceAuthentication)), step([1, 0], .write(nameRequest)),
            step([5, 0, 0, 3, 5] + Array("proxy".utf8) + [0, 80], .established(leftover: [])),
        ]),
        TunnelCase(name: "credentials offered, none needed", make: make(credentials: alice), first: [5, 2, 0, 2],
                   steps: [step([5, 0], .write(nameRequest)), step(boundIPv4, .established(leftover: []))]),
        TunnelCase(name: "an IPv4 address", make: make("127.0.0.1"), first: [5, 1, 0], steps: [
            step([5, 0], .write([5, 1, 0, 1, 127, 0, 0, 1] + port8080)),
            step(boundIPv4, .established(leftover: [])),
        ]),
        TunnelCase(name: "an IPv6 address, bound to IPv6", make: make("::1"), first: [5, 1, 0], steps: [
            step([5, 0], .write([5, 1, 0, 4] + [UInt8](repeating: 0, count: 15) + [1] + port8080)),
            step([5, 0, 0, 4] + [UInt8](repeating: 0, count: 16) + [0, 1], .established(leftover: [])),
        ]),
        TunnelCase(name: "credentials wanted, none given", make: make(), first: [5, 1, 0],
                   steps: [step([5, 0xFF], .failed(.authenticationRequired("the SOCKS5 proxy requires credentials")))]),
        TunnelCase(name: "no acceptable method", make: make(credentials: alice), first: [5, 2, 0, 2], steps: [
            step([5, 0xFF], .failed(.refused("the SOCKS5 proxy accepts none of the offered authentication methods"))),
        ]),
        TunnelCase(name: "a method that was not offered", make: make(), first: [5, 1, 0], steps: [
            step([5, 2], .failed(.malformedReply("the SOCKS5 proxy chose method 2, which was not offered"))),
        ]),
        TunnelCase(name: "credentials rejected", make: make(credentials: alice), first: [5, 2, 0, 2], steps: [
            step([5, 2], .write(aliceAuthentication)),
            step([1, 1], .failed(.authenticationRequired("the SOCKS5 proxy rejected the user name and password"))),
        ]),
        TunnelCase(name: "connection refused by the origin", make: make(), first: [5, 1, 0], steps: [
            step([5, 0], .write(nameRequest)),
            step([5, 5, 0, 1, 0, 0, 0, 0, 0, 0], .failed(.refused("the SOCKS5 proxy answered: connection refused"))),
        ]),
        TunnelCase(name: "not a SOCKS5 proxy", make: make(), first: [5, 1, 0], steps: [
            step(Array("HTTP/1.1 400".utf8),
                 .failed(.malformedReply("the SOCKS5 method selection has version 72, not 5"))),
        ]),
        TunnelCase(name: "an unknown address type", make: make(), first: [5, 1, 0], steps: [
            step([5, 0], .write(nameRequest)),
            step([5, 0, 0, 9, 0, 0], .failed(.malformedReply("the SOCKS5 reply has address type 9"))),
        ]),
    ]

    @Test(arguments: cases)
    func handshakes(_ testCase: TunnelCase) {
        TunnelHarness.check(testCase)
    }

    @Test func bytesBeyondAnAnswerBreakTheProtocol() {
        var handshake = SOCKS5Handshake(target: .name("example.org"), port: 80, credentials: nil)
        _ = handshake.start()
        #expect(handshake.receive([5, 0, 5])
                    == .failed(.malformedReply("the SOCKS5 proxy sent bytes it was not asked for")))
    }

    @Test func aCloseBeforeTheReplyIsARefusal() {
        var handshake = SOCKS5Handshake(target: .name("example.org"), port: 80, credentials: nil)
        _ = handshake.start()
        #expect(handshake.receive([5, 0]) != .waitForMore)
        #expect(handshake.receive([5, 0, 0]) == .waitForMore)
        #expect(handshake.receiveEndOfStream()
                    == .failed(.refused("the SOCKS5 proxy closed the connection during the handshake")))
    }

    @Test func namesAndCredentialsLongerThan255BytesCannotBeSent() {
        var long = SOCKS5Handshake(target: .name(String(repeating: "a", count: 256)), port: 80, credentials: nil)
        _ = long.start()
        #expect(long.receive([5, 0]) == .failed(.refused("a SOCKS5 host name is 1 to 255 bytes, not 256")))
        let huge = ProxyCredentials(user: String(repeating: "u", count: 256), password: "p")
        var handshake = SOCKS5Handshake(target: .name("example.org"), port: 80, credentials: huge)
        _ = handshake.start()
        #expect(handshake.receive([5, 2])
                    == .failed(.authenticationRequired("SOCKS5 user names and passwords are 1 to 255 bytes")))
    }

    @Test(arguments: [("10.1.2.3", SOCKS5Handshake.Target.ipv4([10, 1, 2, 3])),
                      ("example.org", .name("example.org")), ("fe80::1%lo", .name("fe80::1%lo"))])
    func hostsBecomeAddressesOrNames(_ host: String, _ target: SOCKS5Handshake.Target) {
        #expect(SOCKS5Handshake.Target(host: host) == target)
    }
}
