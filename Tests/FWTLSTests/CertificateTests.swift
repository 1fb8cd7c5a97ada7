import FWTLS
import Foundation
import Testing

@Suite struct CertificateTests {
    // MARK: Parsing table

    struct Row: CustomTestStringConvertible, Sendable {
        let file: String
        let summary: String
        let issuer: String
        let alternativeNames: [String]
        let selfSigned: Bool
        let algorithm: String
        let bits: Int

        var testDescription: String { file }
    }

    static let intermediate = "O=FWNetworking Test, CN=FWNetworking Test Intermediate CA"
    static let localhostNames = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"]

    static let rows: [Row] = [
        Row(file: "root-ca.pem", summary: "FWNetworking Test Root CA",
            issuer: "O=FWNetworking Test, CN=FWNetworking Test Root CA", alternativeNames: [], selfSigned: true,
            algorithm: "EC", bits: 256),
        Row(file: "intermediate-ca.pem", summary: "FWNetworking Test Intermediate CA",
            issuer: "O=FWNetworking Test, CN=FWNetworking Test Root CA", alternativeNames: [], selfSigned: false,
            algorithm: "EC", bits: 256),
        Row(file: "valid-ecdsa.pem", summary: "localhost", issuer: intermediate, alternativeNames: localhostNames,
            selfSigned: false, algorithm: "EC", bits: 256),
        Row(file: "valid-rsa.pem", summary: "localhost", issuer: intermediate, alternativeNames: localhostNames,
            selfSigned: false, algorithm: "RSA", bits: 2048),
        Row(file: "wrong-host.pem", summary: "wrong.fw.test", issuer: intermediate,
            alternativeNames: ["DNS:wrong.fw.test"], selfSigned: false, algorithm: "EC", bits: 256),
        Row(file: "wildcard.pem", summary: "*.fw.test", issuer: intermediate, alternativeNames: ["DNS:*.fw.test"],
            selfSigned: false, algorithm: "EC", bits: 256),
        Row(file: "ip-only.pem", summary: "FWNetworking IP leaf", issuer: intermediate,
            alternativeNames: ["IP:127.0.0.1", "IP:::1"], selfSigned: false, algorithm: "EC", bits: 256),
        Row(file: "cn-only.pem", summary: "localhost", issuer: intermediate, alternativeNames: [],
            selfSigned: false, algorithm: "EC", bits: 256),
        Row(file: "self-signed.pem", summary: "localhost", issuer: "O=FWNetworking Test, CN=localhost",
            alternativeNames: localhostNames, selfSigned: true, algorithm: "EC", bits: 256),
        Row(file: "unknown-root-leaf.pem", summary: "localhost",
            issuer: "O=FWNetworking Test, CN=FWNetworking Unknown Root CA", alternativeNames: localhostNames,
            selfSigned: false, algorithm: "EC", bits: 256),
        Row(file: "client.pem", summary: "FWNetworking Test Client",
            issuer: "O=FWNetworking Test, CN=FWNetworking Test Client CA", alternativeNames: [], selfSigned: false,
            algorithm: "EC", bits: 256),
    ]

    @Test(arguments: rows)
    func parsesFixture(_ row: Row) throws {
        let certificate = try Fixtures.certificate(row.file)
        #expect(certificate.subjectSummary == row.summary)
        #expect(certificate.subjectText == "O=FWNetworking Test, CN=\(row.summary)")
        #expect(certificate.issuerText == row.issuer)
        #expect(certificate.subjectAlternativeNames == row.alternativeNames)
        #expect(certificate.isSelfSigned == row.selfSigned)
        #expect(certificate.publicKey.algorithm == row.algorithm)
        #expect(certificate.publicKey.bits == row.bits)
        #expect(certificate.notBefore < certificate.notAfter)
        #expect(certificate.sha256Fingerprint.count == 32)
        #expect(try Certificate(derBytes: certificate.derBytes) == certificate)
    }

    /// Our SPKI pins equal the ones the openssl CLI computed for README.md.
    @Test func spkiPinsMatchTheOpenSSLCommandLine() throws {
        let pins = try Fixtures.readmePins()
        #expect(pins.count >= 17)
        for (file, pin) in pins {
            let certificate = try Fixtures.certificate(file)
            #expect(certificate.spkiPin == pin, "\(file)")
            #expect(certificate.publicKey.spkiPin == pin, "\(file)")
            #expect(certificate.spkiSHA256.count == 32)
        }
    }

    // MARK: Fields

    @Test func namesAndAddresses() throws {
        let valid = try Fixtures.certificate("valid-ecdsa.pem")
        #expect(valid.commonName == "localhost")
        #expect(valid.dnsNames == ["localhost"])
        #expect(valid.ipAddresses == [[127, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]])
        let ipOnly = try Fixtures.certificate("ip-only.pem")
        #expect(ipOnly.dnsNames.isEmpty)
        #expect(ipOnly.ipAddresses.count == 2)
        #expect(try Fixtures.certificate("cn-only.pem").ipAddresses.isEmpty)
    }

    @Test func validityPeriodsInSecondsSince1970() throws {
        let expired = try Fixtures.certificate("expired.pem")
        #expect(expired.notBefore == 946_684_800)
        #expect(expired.notAfter == 978_307_200)
        let notYetValid = try Fixtures.certificate("not-yet-valid.pem")
        #expect(notYetValid.notBefore == 3_786_912_000)
        #expect(notYetValid.notAfter == 4_102_444_800)
    }

    @Test func serialNumbers() throws {
        let valid = try Fixtures.certificate("valid-ecdsa.pem")
        #expect(valid.serialNumber == [0x20, 0x00])
        #expect(valid.serialNumberHex == "2000")
        #expect(try Fixtures.certificate("root-ca.pem").serialNumber.count > 8)
    }

    @Test func fingerprintIsTheSHA256OfTheDER() throws {
        let certificate = try Fixtures.certificate("valid-ecdsa.pem")
        let other = try Fixtures.certificate("valid-rsa.pem")
        #expect(certificate.sha256Fingerprint != other.sha256Fingerprint)
        #expect(certificate.sha256Fingerprint == (try Certificate(derBytes: certificate.derBytes)).sha256Fingerprint)
    }

    // MARK: Decoding

    @Test func pemChainsKeepTheirOrder() throws {
        let chain = try Certificate.certificates(pemFile: Fixtures.path("valid-ecdsa-chain.pem"))
        #expect(chain.map(\.subjectSummary) == ["localhost", "FWNetworking Test Intermediate CA"])
        let text = try String(contentsOfFile: Fixtures.path("valid-ecdsa-chain.pem"), encoding: .utf8)
        #expect(try Certificate.certificates(pemEncoded: text) == chain)
        #expect(try Certificate(pemEncoded: text) == chain[0])
        #expect(Set(chain).count == 2)
    }

    @Test func rejectsWhatIsNotACertificate() throws {
        let der = try Fixtures.certificate("valid-ecdsa.pem").derBytes
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("garbage", Array("not a certificate".utf8)),
            ("truncated", Array(der.dropLast(10))),
            ("trailing bytes", der + [0]),
        ]
        for (name, bytes) in cases {
            #expect(throws: TLSError.self, "\(name)") { try Certificate(derBytes: bytes) }
            do {
                _ = try Certificate(derBytes: bytes)
            } catch {
                #expect(error.isDecodingFailure, "\(name)")
            }
        }
        #expect(throws: TLSError.self) { try Certificate.certificates(pemEncoded: "no PEM here") }
        #expect(throws: TLSError.self) { try Certificate.certificates(pemEncoded: try Fixtures.bytes("client.key")) }
        do {
            _ = try Certificate.certificates(pemFile: Fixtures.path("missing.pem"))
            Issue.record("a missing file must throw")
        } catch {
            #expect(error.isFileUnreadable)
        }
    }

    @Test func descriptionNamesSubjectAndIssuer() throws {
        let text = String(describing: try Fixtures.certificate("valid-ecdsa.pem"))
        #expect(text.contains("CN=localhost"))
        #expect(text.contains("Intermediate CA"))
    }
}
