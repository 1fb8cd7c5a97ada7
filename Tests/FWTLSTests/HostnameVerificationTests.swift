import FWTLS
import Testing

@Suite struct HostnameVerificationTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let host: String
        let dns: [String]
        let ips: [[UInt8]]
        let commonName: String?
        let matches: Bool
        let why: String

        init(
            _ host: String, dns: [String] = [], ips: [[UInt8]] = [], cn: String? = nil, _ matches: Bool,
            _ why: String
        ) {
            self.host = host
            self.dns = dns
            self.ips = ips
            self.commonName = cn
            self.matches = matches
            self.why = why
        }

        var testDescription: String { "\(host) vs \(dns) \(ips) cn=\(commonName ?? "-"): \(why)" }
    }

    static let v4: [UInt8] = [127, 0, 0, 1]
    static let v6: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    static let v6Doc: [UInt8] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01]

    static let rows: [Row] = [
        // Exact DNS names
        Row("example.com", dns: ["example.com"], true, "exact"),
        Row("EXAMPLE.com", dns: ["example.COM"], true, "ASCII case-insensitive"),
        Row("example.com.", dns: ["example.com"], true, "trailing dot on the host"),
        Row("example.com", dns: ["example.com."], true, "trailing dot in the name"),
        Row("example.com..", dns: ["example.com"], false, "two trailing dots leave an empty label"),
        Row("www.example.com", dns: ["example.com"], false, "no implicit subdomains"),
        Row("example.com", dns: ["www.example.com"], false, "no implicit parent"),
        Row("example.co", dns: ["example.com"], false, "prefix is not a match"),
        Row("a..example.com", dns: ["a..example.com"], false, "empty label"),
        Row("", dns: [""], false, "empty host"),
        Row("example.com", dns: ["other.com", "example.com"], true, "any SAN may match"),
        // Wildcards
        Row("www.example.com", dns: ["*.example.com"], true, "wildcard covers one label"),
        Row("WWW.Example.Com", dns: ["*.EXAMPLE.com"], true, "wildcard, mixed case"),
        Row("a.b.example.com", dns: ["*.example.com"], false, "wildcard never covers two labels"),
        Row("example.com", dns: ["*.example.com"], false, "wildcard never matches empty"),
        Row(".example.com", dns: ["*.example.com"], false, "empty first label"),
        Row("www.example.com.", dns: ["*.example.com"], true, "wildcard with trailing dot on the host"),
        Row("foo.com", dns: ["*.com"], false, "no wildcard over a two-label suffix"),
        Row("foo.com", dns: ["*"], false, "bare star"),
        Row("foo.example.com", dns: ["f*.example.com"], false, "partial-label wildcard is refused"),
        Row("foo.example.com", dns: ["*oo.example.com"], false, "partial-label wildcard is refused"),
        Row("www.foo.com", dns: ["www.*.com"], false, "star not in the left-most label"),
        Row("www.example.com", dns: ["*.*.com"], false, "two stars"),
        Row("*.example.com", dns: ["www.example.com"], false, "star in the host is just a character"),
        Row("api.fw.test", dns: ["*.fw.test"], true, "fixture wildcard"),
        // IP literals
        Row("127.0.0.1", ips: [v4], true, "IPv4 SAN"),
        Row("127.0.0.2", ips: [v4], false, "other IPv4"),
        Row("::1", ips: [v6], true, "IPv6 SAN"),
        Row("[::1]", ips: [v6], true, "bracketed IPv6"),
        Row("0:0:0:0:0:0:0:1", ips: [v6], true, "IPv6 in long form"),
        Row("2001:DB8::1", ips: [v6Doc], true, "IPv6 hex case"),
        Row("fe80::1%eth0", ips: [[0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]], true, "zone ignored"),
        Row("127.0.0.1", dns: ["127.0.0.1"], false, "IP host never matches a DNS SAN"),
        Row("127.0.0.1", dns: ["*.0.0.1"], false, "IP host never matches a wildcard"),
        Row("127.0.0.1", cn: "127.0.0.1", false, "IP host never falls back to the CN"),
        Row("::1", ips: [v4], false, "IPv6 host vs IPv4 SAN"),
        Row("127.0.0.1", ips: [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]], false, "mapped v6 is not v4"),
        Row("localhost", ips: [v4], false, "DNS host vs IP SAN only"),
        Row("127.1", ips: [v4], false, "shorthand IPv4 is a DNS name, not an address"),
        // Common name fallback
        Row("localhost", cn: "localhost", true, "CN only when there is no SAN"),
        Row("LOCALHOST", cn: "localhost", true, "CN case-insensitive"),
        Row("localhost", dns: ["other.test"], cn: "localhost", false, "no CN fallback when a DNS SAN exists"),
        Row("localhost", ips: [v4], cn: "localhost", false, "no CN fallback when an IP SAN exists"),
        Row("www.example.com", cn: "*.example.com", true, "CN wildcard follows the same rules"),
        Row("a.b.example.com", cn: "*.example.com", false, "CN wildcard, two labels"),
        Row("localhost", false, "no names at all"),
    ]

    @Test(arguments: rows)
    func matchesPerRFC6125(_ row: Row) {
        let result = HostnameVerification.matches(
            host: row.host, dnsNames: row.dns, ipAddresses: row.ips, commonName: row.commonName
        )
        #expect(result == row.matches, "\(row.why)")
    }

    struct CertificateRow: Sendable {
        let file: String
        let host: String
        let matches: Bool
    }

    static let certificateRows: [CertificateRow] = [
        CertificateRow(file: "valid-ecdsa.pem", host: "localhost", matches: true),
        CertificateRow(file: "valid-ecdsa.pem", host: "127.0.0.1", matches: true),
        CertificateRow(file: "valid-ecdsa.pem", host: "[::1]", matches: true),
        CertificateRow(file: "valid-ecdsa.pem", host: "localhost.localdomain", matches: false),
        CertificateRow(file: "wrong-host.pem", host: "localhost", matches: false),
        CertificateRow(file: "wrong-host.pem", host: "wrong.fw.test", matches: true),
        CertificateRow(file: "wildcard.pem", host: "api.fw.test", matches: true),
        CertificateRow(file: "wildcard.pem", host: "fw.test", matches: false),
        CertificateRow(file: "wildcard.pem", host: "a.b.fw.test", matches: false),
        CertificateRow(file: "ip-only.pem", host: "127.0.0.1", matches: true),
        CertificateRow(file: "ip-only.pem", host: "localhost", matches: false),
        CertificateRow(file: "cn-only.pem", host: "localhost", matches: true),
        CertificateRow(file: "cn-only.pem", host: "127.0.0.1", matches: false),
    ]

    @Test(arguments: certificateRows)
    func certificatesUseTheirOwnNames(_ row: CertificateRow) throws {
        #expect(try Fixtures.certificate(row.file).matches(host: row.host) == row.matches)
    }
}
