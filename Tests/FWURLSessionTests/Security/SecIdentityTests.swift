import Foundation
import FWTLS
@testable import FWURLSession
import Testing

@Suite struct SecIdentityTests {
    /// Imports the client PKCS#12 the way Apple code does.
    static func importClientPKCS12(password: String?) throws -> (OSStatus, [[String: Any]]?) {
        let data = try SecurityFixtures.data("client.p12")
        let options: [String: Any] = password.map { [kSecImportExportPassphrase as String: $0] } ?? [:]
        var items: CFArray?
        let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
        return (status, items as? [[String: Any]])
    }

    @Test func pkcs12ImportGivesTheIdentityChainTrustAndLabel() throws {
        let (status, items) = try Self.importClientPKCS12(password: SecurityFixtures.clientPassword)
        #expect(status == errSecSuccess)
        let item = try #require(items?.first)
        #expect(items?.count == 1)

        let identity = try #require(item[kSecImportItemIdentity as String] as? SecIdentity)
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        let client = try SecurityFixtures.certificate("client.pem")
        #expect(certificate == client)

        let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(chain == [client, try SecurityFixtures.certificate("client-ca.pem")])
        let trust = try #require(item[kSecImportItemTrust as String] as? SecTrust)
        #expect(SecTrustCopyCertificateChain(trust) as? [SecCertificate] == chain)
        #expect(item[kSecImportItemLabel as String] as? String == "FWNetworking Test Client")
    }

    @Test(arguments: [
        ("client.p12", "wrong", errSecAuthFailed),
        ("client.p12", nil, errSecAuthFailed),
        ("client.pem", "fwnetworking", errSecDecode),
    ] as [(String, String?, OSStatus)])
    func pkcs12ImportFailures(_ file: String, _ password: String?, _ status: OSStatus) throws {
        let options: [String: Any] = password.map { [kSecImportExportPassphrase as String: $0] } ?? [:]
        var items: CFArray?
        #expect(SecPKCS12Import(try SecurityFixtures.data(file) as CFData, options as CFDictionary, &items) == status)
        #expect(items == nil)
    }

    @Test func aPEMIdentityEqualsThePKCS12One() throws {
        let pem = SecIdentity(tlsIdentity: try TLSIdentity(
            certificateChainPEMFile: SecurityFixtures.path("client.pem"),
            privateKeyPEMFile: SecurityFixtures.path("client.key")
        ))
        let (_, items) = try Self.importClientPKCS12(password: SecurityFixtures.clientPassword)
        let imported = try #require(items?.first?[kSecImportItemIdentity as String] as? SecIdentity)

        #expect(pem == imported)
        #expect(pem.hashValue == imported.hashValue)
        #expect(pem.tlsIdentity.certificate == (try SecurityFixtures.certificate("client.pem").certificate))
        #expect(imported.tlsIdentity.intermediates.map(\.subjectSummary) == ["FWNetworking Test Client CA"])
        #expect(pem.description == "<SecIdentity FWNetworking Test Client>")
    }

    @Test func importConstantsHaveApplesValues() {
        #expect([kSecImportExportPassphrase, kSecImportItemIdentity, kSecImportItemCertChain, kSecImportItemTrust,
                 kSecImportItemLabel] == ["passphrase", "identity", "chain", "trust", "label"])
    }
}
