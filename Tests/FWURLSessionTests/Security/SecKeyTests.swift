import Foundation
@testable import FWURLSession
import Testing

// Key export must be byte for byte what Apple's SecKeyCopyExternalRepresentation returns: PKCS#1
// RSAPublicKey for RSA, the X9.63 uncompressed point 04 || X || Y for EC. Checked by rebuilding the
// SubjectPublicKeyInfo with the fixed ASN.1 header pinning code prepends and comparing its SHA-256 with
// the pin the openssl CLI computed (Fixtures/tls/README.md).
@Suite struct SecKeyTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let file: String
        let header: [UInt8]
        let length: Int
        let firstBytes: [UInt8]
        let type: String
        let bits: Int
        var testDescription: String { file }
    }

    static let rsa2048Header: [UInt8] = [
        0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
        0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00,
    ]
    static let p256Header: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
        0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03,
        0x42, 0x00,
    ]

    static let rows: [Row] = [
        // RSAPublicKey ::= SEQUENCE { modulus INTEGER (257 bytes with the sign byte), exponent 65537 }
        Row(file: "valid-rsa.pem", header: rsa2048Header, length: 270, firstBytes: [0x30, 0x82, 0x01, 0x0a],
            type: "42", bits: 2048),
        Row(file: "valid-ecdsa.pem", header: p256Header, length: 65, firstBytes: [0x04], type: "73", bits: 256),
        Row(file: "root-ca.pem", header: p256Header, length: 65, firstBytes: [0x04], type: "73", bits: 256),
        Row(file: "intermediate-ca.pem", header: p256Header, length: 65, firstBytes: [0x04], type: "73", bits: 256),
    ]

    @Test(arguments: rows)
    func exportsTheKeyAsApplesDocumentationSays(_ row: Row) throws {
        let certificate = try SecurityFixtures.certificate(row.file)
        let key = try #require(SecCertificateCopyKey(certificate))
        var error: Unmanaged<CFError>?
        let exported = try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
        #expect(error == nil)

        #expect(exported.count == row.length)
        #expect(Array(exported.prefix(row.firstBytes.count)) == row.firstBytes)
        let spki = Data(row.header) + exported
        #expect([UInt8](spki) == certificate.certificate.spkiDER)
        let pin = "sha256//" + Data(TinySHA256.hash([UInt8](spki))).base64EncodedString()
        #expect(pin == (try SecurityFixtures.readmePins()[row.file]))
    }

    @Test(arguments: rows)
    func attributesNameTheTypeSizeAndClass(_ row: Row) throws {
        let key = try #require(SecCertificateCopyKey(try SecurityFixtures.certificate(row.file)))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == row.type)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == row.bits)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic)
        #expect(attributes.count == 3)
    }

    @Test func attributeConstantsHaveApplesValues() {
        #expect([kSecAttrKeyType, kSecAttrKeySizeInBits, kSecAttrKeyClass] == ["type", "bsiz", "kcls"])
        #expect([kSecAttrKeyTypeRSA, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyTypeEC] == ["42", "73", "73"])
        #expect(kSecAttrKeyClassPublic == "0")
    }

    @Test func keysAreEqualWhenTheirSubjectPublicKeyInfoIs() throws {
        let rsa = try #require(SecCertificateCopyKey(try SecurityFixtures.certificate("valid-rsa.pem")))
        let again = try #require(SecCertificateCopyKey(try SecurityFixtures.certificate("valid-rsa.pem")))
        let ecdsa = try #require(SecCertificateCopyKey(try SecurityFixtures.certificate("valid-ecdsa.pem")))
        let chainLeaf = try #require(SecCertificateCopyKey(try SecurityFixtures.certificate("valid-ecdsa-chain.pem")))

        #expect(rsa == again)
        #expect(rsa !== again)
        #expect(ecdsa == chainLeaf)
        #expect(rsa != ecdsa)
        #expect(Set([rsa, again, ecdsa, chainLeaf]).count == 2)
        #expect(rsa.description.contains("RSA 2048 bits"))
        #expect(rsa.description.contains("sha256//zgQCaUkG9Z6mBksj3GmAMhV0lSrXSlxUd0TF8Ya6X1c="))
    }

    @Test func keysOfOtherAlgorithmsAreNotSecKeys() throws {
        let ed25519 = try #require(Data(base64Encoded: SecCertificateTests.ed25519CertificateBase64))
        let certificate = try #require(SecCertificateCreateWithData(nil, ed25519 as CFData))
        #expect(certificate.certificate.publicKey.algorithm == "ED25519")
        #expect(SecCertificateCopyKey(certificate) == nil)
    }
}
