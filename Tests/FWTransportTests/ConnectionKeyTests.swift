// ConnectionKey: which keys are equal (every field, the boxed proxy by value), hashing that agrees with
// equality, and the proxy's routing properties.

import Testing

@testable import FWTransport

@Suite struct ConnectionKeyTests {
    private static func proxy(authorization: String? = nil, password: String = "secret") -> ProxyServer {
        ProxyServer(kind: .http, host: "Proxy.Example", port: 3128,
                    credentials: ProxyCredentials(user: "user", password: password), authorization: authorization)
    }

    @Test func keysWithEqualFieldsAreEqualAndHashAlike() {
        let direct = ConnectionKey(scheme: "HTTP", host: "Example.com", port: 80)
        #expect(direct == ConnectionKey(scheme: "http", host: "example.com", port: 80))
        // Two proxies made apart are two boxes holding equal values.
        let proxied = ConnectionKey(scheme: "https", host: "example.com", port: 443, proxy: Self.proxy())
        let again = ConnectionKey(scheme: "https", host: "example.com", port: 443, proxy: Self.proxy())
        #expect(proxied == again)
        #expect(Set([proxied, again]).count == 1)
        var copy = proxied
        copy.proxy = Self.proxy()
        #expect(copy == proxied)
    }

    @Test func everyFieldTellsKeysApart() {
        let base = ConnectionKey(scheme: "https", host: "example.com", port: 443, proxy: Self.proxy())
        var variants: [ConnectionKey] = []
        for change in 0..<7 {
            var key = base
            switch change {
            case 0: key.scheme = "wss"
            case 1: key.host = "example.org"
            case 2: key.port = 8443
            case 3: key.proxy = nil
            case 4: key.proxy = Self.proxy(password: "other")
            case 5: key.proxy = Self.proxy(authorization: "Negotiate abc")
            default: key = base.isolated()
            }
            #expect(key != base, "change \(change)")
            variants.append(key)
        }
        #expect(Set(variants + [base]).count == 8)
    }

    // The key keeps its host's hash (`hostHash`): a key whose host changed after it was made hashes as a key
    // made with that host, and a table finds keys of many hosts and ports, and only those.
    @Test func aChangedHostHashesAsANewKeyAndTablesFindEveryKey() {
        var changed = ConnectionKey(scheme: "http", host: "a.example", port: 80)
        changed.host = "b.example"
        let made = ConnectionKey(scheme: "http", host: "b.example", port: 80)
        #expect(changed == made && changed.hashValue == made.hashValue)
        #expect(changed._rawHashValue(seed: 9) == made._rawHashValue(seed: 9))
        #expect(Set([changed, made]).count == 1)

        var table: [ConnectionKey: Int] = [:]
        for host in 0..<50 {
            for port in [80, 443, 8080, 8443] {
                table[ConnectionKey(scheme: "http", host: "h\(host).example", port: port)] = host * 10_000 + port
            }
        }
        #expect(table.count == 200)
        #expect((0..<50).allSatisfy { host in
            [80, 443, 8080, 8443].allSatisfy { port in
                table[ConnectionKey(scheme: "http", host: "h\(host).example", port: port)] == host * 10_000 + port
            }
        })
        #expect(table[ConnectionKey(scheme: "http", host: "h50.example", port: 80)] == nil)
        #expect(table[ConnectionKey(scheme: "http", host: "h1.example", port: 81)] == nil)
    }

    @Test func theProxyDecidesTunnelsAndAbsoluteForm() {
        let plain = ConnectionKey(scheme: "http", host: "example.com", port: 80, proxy: Self.proxy())
        #expect(plain.usesAbsoluteForm && !plain.needsTunnel)
        let secure = ConnectionKey(scheme: "https", host: "example.com", port: 443, proxy: Self.proxy())
        #expect(!secure.usesAbsoluteForm && secure.needsTunnel)
        var socks = plain
        socks.proxy = ProxyServer(kind: .socks5, host: "127.0.0.1", port: 1080)
        #expect(!socks.usesAbsoluteForm && socks.needsTunnel)
        #expect(socks.proxy?.port == 1080)
        let direct = ConnectionKey(scheme: "https", host: "example.com", port: 443)
        #expect(!direct.usesAbsoluteForm && !direct.needsTunnel && direct.proxy == nil)
    }

    // The ids hash with a cheap mix (`TransportIDHash`): tables of consecutive and scattered ids still find
    // every id and only those, equal ids hash alike, and consecutive ids take distinct buckets of a table.
    @Test func idsHashAlikeWhenEqualAndTablesFindEveryOne() {
        let numbers: [UInt64] = Array(1...5_000) + [0, .max, 1 << 32, 1 << 63, 0x9E37_79B9_7F4A_7C15]
        var requests: [RequestID: UInt64] = [:]
        var connections = Set<ConnectionID>()
        for number in numbers {
            requests[RequestID(number)] = number
            connections.insert(ConnectionID(number))
        }
        #expect(requests.count == numbers.count && connections.count == numbers.count)
        #expect(numbers.allSatisfy { requests[RequestID($0)] == $0 && connections.contains(ConnectionID($0)) })
        #expect(requests[RequestID(5_001)] == nil && !connections.contains(ConnectionID(5_001)))
        for number in numbers.prefix(64) {
            #expect(RequestID(number).hashValue == RequestID(number).hashValue)
            #expect(RequestID(number)._rawHashValue(seed: 7) == RequestID(number)._rawHashValue(seed: 7))
        }
        let buckets = Set((1...1_024).map { UInt64($0) }.map { ConnectionID($0)._rawHashValue(seed: 0) & 1_023 })
        #expect(buckets.count == 1_024)
    }
}
