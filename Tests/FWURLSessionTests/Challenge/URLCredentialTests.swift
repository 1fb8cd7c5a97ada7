import Foundation
import FWTLS
@testable import FWURLSession
import Testing

@Suite struct URLCredentialTests {
    static func clientIdentity() throws -> SecIdentity {
        SecIdentity(tlsIdentity: try TLSIdentity(
            certificateChainPEMFile: SecurityFixtures.path("client.pem"),
            privateKeyPEMFile: SecurityFixtures.path("client.key")
        ))
    }

    @Test func aPasswordCredential() {
        let credential = URLCredential(user: "ada", password: "secret", persistence: .permanent)
        #expect(credential.user == "ada")
        #expect(credential.password == "secret")
        #expect(credential.hasPassword)
        #expect(credential.persistence == .permanent)
        #expect(credential.identity == nil)
        #expect(credential.certificates.isEmpty)
        #expect(credential.trust == nil)
        #expect(credential.tlsIdentity == nil)
    }

    @Test func aTrustCredential() throws {
        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("valid-rsa.pem"),
                                               policy: SecPolicyCreateSSL(true, "localhost" as CFString))
        let credential = URLCredential(trust: trust)
        #expect(credential.trust === trust)
        #expect(credential.persistence == .forSession)
        #expect(credential.user == nil)
        #expect(!credential.hasPassword)
        #expect(credential.identity == nil)
    }

    @Test func anIdentityCredentialKeepsItsCertificates() throws {
        let identity = try Self.clientIdentity()
        let intermediate = try SecurityFixtures.certificate("client-ca.pem")
        let credential = URLCredential(identity: identity, certificates: [intermediate, "ignored"],
                                       persistence: .forSession)
        #expect(credential.identity == identity)
        #expect(credential.certificates as? [SecCertificate] == [intermediate])
        #expect(credential.tlsIdentity?.certificate == identity.tlsIdentity.certificate)
        #expect(credential.intermediateCertificates == [intermediate.certificate])
        #expect(!credential.hasPassword)
        #expect(URLCredential(identity: identity, certificates: nil, persistence: .none).certificates.isEmpty)
    }

    @Test(arguments: [
        (URLCredential.Persistence.none, UInt(0)), (.forSession, 1), (.permanent, 2), (.synchronizable, 3),
    ])
    func persistenceRawValuesAreApples(_ persistence: URLCredential.Persistence, _ rawValue: UInt) {
        #expect(persistence.rawValue == rawValue)
        #expect(URLCredential.Persistence(rawValue: rawValue) == persistence)
    }

    @Test func equality() throws {
        let credential = URLCredential(user: "ada", password: "secret", persistence: .forSession)
        #expect(credential == URLCredential(user: "ada", password: "secret", persistence: .forSession))
        #expect(credential.hash == URLCredential(user: "ada", password: "secret", persistence: .forSession).hash)
        #expect(credential != URLCredential(user: "ada", password: "other", persistence: .forSession))
        #expect(credential != URLCredential(user: "bob", password: "secret", persistence: .forSession))
        #expect(credential != URLCredential(user: "ada", password: "secret", persistence: .permanent))
        #expect(!credential.isEqual("ada"))

        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("valid-rsa.pem"),
                                               policy: SecPolicyCreateBasicX509())
        let otherTrust = try SecurityFixtures.trust(try SecurityFixtures.chain("valid-rsa.pem"),
                                                    policy: SecPolicyCreateBasicX509())
        #expect(URLCredential(trust: trust) == URLCredential(trust: trust))
        #expect(URLCredential(trust: trust) != URLCredential(trust: otherTrust))

        let identity = try Self.clientIdentity()
        let intermediate = try SecurityFixtures.certificate("client-ca.pem")
        #expect(URLCredential(identity: identity, certificates: [intermediate], persistence: .none)
            == URLCredential(identity: try Self.clientIdentity(), certificates: [intermediate], persistence: .none))
        #expect(URLCredential(identity: identity, certificates: [intermediate], persistence: .none)
            != URLCredential(identity: identity, certificates: nil, persistence: .none))
    }

    @Test func copiesAreTheSameObject() {
        let credential = URLCredential(user: "ada", password: "secret", persistence: .none)
        #expect(credential.copy() as AnyObject === credential)
        #expect(credential.copy(with: nil) as AnyObject === credential)
    }

    @Test(arguments: [
        URLCredential(user: "ada", password: "secret", persistence: .permanent),
        URLCredential(user: "", password: "", persistence: .none),
    ])
    func archivesRoundTrip(_ credential: URLCredential) throws {
        #expect(URLCredential.supportsSecureCoding)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: credential, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: URLCredential.self, from: archive))
        #expect(decoded == credential)
        #expect(decoded.user == credential.user)
        #expect(decoded.password == credential.password)
        #expect(decoded.persistence == credential.persistence)
    }

    @Test(arguments: [(UInt(9), false), (UInt(1), true)])
    func decodingRefusesAnUnknownPersistence(_ rawValue: UInt, _ decodes: Bool) throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(NSString(string: "ada"), forKey: "NS._user")
        archiver.encode(NSNumber(value: rawValue), forKey: "NS._persistence")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        let decoded = URLCredential(coder: unarchiver)
        #expect((decoded != nil) == decodes)
        if let decoded {
            #expect(decoded.user == "ada")
            #expect(decoded.password == nil)
            #expect(decoded.persistence == .forSession)
        }
    }

    @Test func trustsAndIdentitiesAreNotArchived() throws {
        let trust = try SecurityFixtures.trust(try SecurityFixtures.chain("valid-rsa.pem"),
                                               policy: SecPolicyCreateBasicX509())
        let archive = try NSKeyedArchiver.archivedData(withRootObject: URLCredential(trust: trust),
                                                       requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: URLCredential.self, from: archive))
        #expect(decoded.trust == nil)
        #expect(decoded.persistence == .forSession)
    }
}
