import Foundation
import TestSupport
import FWURLSession
import Testing

// MARK: - SecurityFixtures

/// The TLS fixtures of Fixtures/tls (Scripts/make-test-certs.sh), loaded the way Apple code loads
/// certificates: DER bytes given to `SecCertificateCreateWithData`.
enum SecurityFixtures {
    /// Fixtures/tls, found from this file's path (Tests/FWURLSessionTests/Security/SecurityFixtures.swift).
    static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/tls").path

    /// The path of a fixture file.
    static func path(_ name: String) -> String {
        directory + "/" + name
    }

    /// A fixture file's bytes.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }

    /// The DER bytes of every certificate of a PEM fixture, in order.
    static func derCertificates(_ name: String) throws -> [Data] {
        let text = try String(contentsOfFile: path(name), encoding: .utf8)
        var blocks: [Data] = []
        var base64: String?
        for line in text.split(whereSeparator: \.isNewline) {
            if line == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if line == "-----END CERTIFICATE-----", let body = base64 {
                blocks.append(try #require(Data(base64Encoded: body)))
                base64 = nil
            } else if base64 != nil {
                base64? += line
            }
        }
        return blocks
    }

    /// The first certificate of a PEM fixture.
    static func certificate(_ name: String) throws -> SecCertificate {
        let der = try #require(try derCertificates(name).first)
        return try #require(SecCertificateCreateWithData(nil, der as CFData))
    }

    /// A leaf fixture followed by the intermediate, as a server sends it.
    static func chain(_ leaf: String) throws -> [SecCertificate] {
        [try certificate(leaf), try certificate("intermediate-ca.pem")]
    }

    /// The fixtures' root CA.
    static func root() throws -> SecCertificate {
        try certificate("root-ca.pem")
    }

    /// A trust over `certificates` with `policy`, anchored in the fixture root only.
    static func trust(_ certificates: [SecCertificate], policy: SecPolicy) throws -> SecTrust {
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates(certificates as CFArray, policy, &trust) == errSecSuccess)
        let created = try #require(trust)
        #expect(SecTrustSetAnchorCertificates(created, [try root()] as CFArray) == errSecSuccess)
        return created
    }

    /// The SPKI pins README.md lists, by file name.
    static func readmePins() throws -> [String: String] {
        try TLSFixtures.readmePins()
    }

    /// The PKCS#12 and encrypted-key password of the client identity.
    static let clientPassword = "fwnetworking"
}
