import FWTLS
import Foundation
import Testing
import TestSupport

// The negotiated cipher suite, against `openssl s_server` restricted to one suite: its IANA number and
// both names must be what the openssl CLI's own table (`openssl ciphers -V -stdname`) says.
@Suite struct TLSCipherSuiteTests {
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var certificate: String
        var version: TLSVersion
        var description: String { name }
    }

    static let rows = [
        Row(name: "TLS_AES_128_GCM_SHA256", certificate: "valid-ecdsa.pem", version: .v1_3),
        Row(name: "TLS_CHACHA20_POLY1305_SHA256", certificate: "valid-rsa.pem", version: .v1_3),
        Row(name: "ECDHE-ECDSA-AES128-GCM-SHA256", certificate: "valid-ecdsa.pem", version: .v1_2),
        Row(name: "ECDHE-ECDSA-CHACHA20-POLY1305", certificate: "valid-ecdsa.pem", version: .v1_2),
        Row(name: "ECDHE-RSA-AES256-GCM-SHA384", certificate: "valid-rsa.pem", version: .v1_2),
    ]

    /// The openssl CLI's entry for an OpenSSL cipher name: IANA number and standard name.
    static func cliEntry(_ name: String) throws -> (id: UInt16, standardName: String) {
        let text = try Fixtures.openssl(["ciphers", "-V", "-stdname", "ALL:COMPLEMENTOFALL"])
        // "0xC0,0x2B - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 - ECDHE-ECDSA-AES128-GCM-SHA256 TLSv1.2 ..."
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count > 4, words[4] == name else { continue }
            let bytes = words[0].split(separator: ",").compactMap { UInt8($0.dropFirst(2), radix: 16) }
            let id = try #require(bytes.count == 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : nil)
            return (id, String(words[2]))
        }
        throw HarnessError("openssl ciphers does not list \(name)")
    }

    @Test(arguments: rows)
    func theNegotiatedSuiteHasOpenSSLsNumberAndNames(_ row: Row) throws {
        let restriction = row.version == .v1_3 ? ["-tls1_3", "-ciphersuites", row.name]
            : ["-tls1_2", "-cipher", row.name]
        let server = try OpenSSLServer.start(certificate: row.certificate, extra: restriction)
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        #expect(client.engine.cipherSuite == nil, "nothing is negotiated before the handshake")
        try client.handshake()
        let entry = try Self.cliEntry(row.name)
        let suite = try #require(client.engine.cipherSuite)
        #expect(suite == TLSCipherSuite(id: entry.id, name: row.name, standardName: entry.standardName))
        #expect(suite.name == client.engine.cipher)
    }

    @Test(arguments: [
        (TLSCipherSuite(id: 0x1302, name: "TLS_AES_256_GCM_SHA384", standardName: nil),
         "TLS_AES_256_GCM_SHA384 (0x1302)"),
        (TLSCipherSuite(id: 0x9C, name: "AES128-GCM-SHA256", standardName: nil), "AES128-GCM-SHA256 (0x009C)"),
    ])
    func descriptionShowsTheNameAndTheNumber(_ suite: TLSCipherSuite, _ expected: String) {
        #expect(suite.description == expected)
    }
}
