@testable import FWURLSession
import Testing

// no_proxy as curl reads it (and CFNetwork's ExceptionsList): one row per entry shape.
@Suite struct NoProxyListTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let list: String
        let host: String
        let port: Int
        let bypasses: Bool
        var testDescription: String { "\(list) \(bypasses ? "bypasses" : "keeps") \(host):\(port)" }
    }

    static let rows = [
        Row(list: "*", host: "anything.example", port: 80, bypasses: true),
        Row(list: "example.org", host: "example.org", port: 80, bypasses: true),
        Row(list: "example.org", host: "www.example.org", port: 443, bypasses: true),
        Row(list: "example.org", host: "badexample.org", port: 80, bypasses: false),
        Row(list: ".example.org", host: "example.org", port: 80, bypasses: true),
        Row(list: "*.example.org", host: "a.b.example.org", port: 80, bypasses: true),
        Row(list: "Example.ORG.", host: "www.example.org", port: 80, bypasses: true),
        Row(list: "other.test, example.org", host: "example.org", port: 80, bypasses: true),
        Row(list: "other.test example.org", host: "example.org", port: 80, bypasses: true),
        Row(list: "example.org:8080", host: "example.org", port: 8080, bypasses: true),
        Row(list: "example.org:8080", host: "example.org", port: 80, bypasses: false),
        Row(list: "127.0.0.1", host: "127.0.0.1", port: 80, bypasses: true),
        Row(list: "127.0.0.1", host: "127.0.0.2", port: 80, bypasses: false),
        Row(list: "127.0.0.1", host: "localhost", port: 80, bypasses: false),
        Row(list: "10.0.0.0/8", host: "10.20.30.40", port: 80, bypasses: true),
        Row(list: "10.0.0.0/8", host: "11.0.0.1", port: 80, bypasses: false),
        Row(list: "192.168.1.0/25", host: "192.168.1.127", port: 80, bypasses: true),
        Row(list: "192.168.1.0/25", host: "192.168.1.128", port: 80, bypasses: false),
        Row(list: "169.254/16", host: "169.254.9.9", port: 80, bypasses: true),
        Row(list: "10.0.0.0/8:443", host: "10.0.0.1", port: 80, bypasses: false),
        Row(list: "::1", host: "::1", port: 80, bypasses: true),
        Row(list: "[::1]:8443", host: "::1", port: 8443, bypasses: true),
        Row(list: "[::1]:8443", host: "::1", port: 80, bypasses: false),
        Row(list: "fd00::/8", host: "fd12::5", port: 80, bypasses: true),
        Row(list: "fd00::/8", host: "fe80::1", port: 80, bypasses: false),
        Row(list: "fd00::/8", host: "10.0.0.1", port: 80, bypasses: false),
        Row(list: "", host: "example.org", port: 80, bypasses: false),
        Row(list: "10.0.0.0/40, host:notaport, :80, .", host: "10.0.0.1", port: 80, bypasses: false),
    ]

    @Test(arguments: rows)
    func entries(_ row: Row) {
        #expect(NoProxyList(row.list).matches(host: row.host, port: row.port) == row.bypasses)
    }

    @Test func malformedEntriesAreIgnored() {
        #expect(NoProxyList("10.0.0.0/40, host:notaport, :80, ., example.org").rules
                    == [.suffix("example.org", port: nil)])
    }
}
