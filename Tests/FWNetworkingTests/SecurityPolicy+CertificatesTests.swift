import Foundation
import FWNetworking
import Testing
import TestSupport

// Pinned certificates from files: the `.cer` files of a bundle or a directory, read as they are.
@Suite struct SecurityPolicyCertificatesTests {
    /// A temporary directory with two DER `.cer` files, a PEM file, a `.CER`, and a `.cer` in a subdirectory.
    private static func makeDirectory() throws -> (path: String, expected: Set<Data>) {
        let path = NSTemporaryDirectory() + "fwnetworking-cer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/nested", withIntermediateDirectories: true)
        let leaf = try #require(try PolicyRow.der(["valid-ecdsa.pem"]).first)
        let root = try #require(try PolicyRow.der(["root-ca.pem"]).first)
        let other = try #require(try PolicyRow.der(["valid-rsa.pem"]).first)
        try leaf.write(to: URL(fileURLWithPath: path + "/leaf.cer"))
        try root.write(to: URL(fileURLWithPath: path + "/root.cer"))
        try other.write(to: URL(fileURLWithPath: path + "/other.der"))
        try other.write(to: URL(fileURLWithPath: path + "/upper.CER"))
        try other.write(to: URL(fileURLWithPath: path + "/nested/deep.cer"))
        try Data(contentsOf: URL(fileURLWithPath: TLSFixtures.path("valid-rsa.pem")))
            .write(to: URL(fileURLWithPath: path + "/notes.pem"))
        return (path, [leaf, root])
    }

    @Test func theCerFilesOfADirectoryAreRead() throws {
        let (path, expected) = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(SecurityPolicy.certificates(inDirectory: URL(fileURLWithPath: path)) == expected)
    }

    @Test func theCerResourcesOfABundleAreRead() throws {
        let (path, expected) = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bundle = try #require(Bundle(path: path))
        #expect(SecurityPolicy.certificates(in: bundle) == expected)
    }

    @Test func aMissingDirectoryGivesNoCertificates() {
        let missing = URL(fileURLWithPath: NSTemporaryDirectory() + "fwnetworking-missing-\(UUID().uuidString)")
        #expect(SecurityPolicy.certificates(inDirectory: missing).isEmpty)
    }

    @Test func filesThatAreNotDERArePinnedButMatchNothing() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Data("not a certificate".utf8)])
        #expect(policy.pinnedCertificates?.count == 1)
        let der = try #require(try PolicyRow.der(["self-signed.pem"]).first)
        let leaf = try #require(SecCertificateCreateWithData(nil, der as CFData))
        var created: SecTrust?
        #expect(SecTrustCreateWithCertificates(leaf, nil, &created) == errSecSuccess)
        let trust = try #require(created)
        let error = #expect(throws: TrustError.self) { try policy.evaluate(trust, forDomain: nil) }
        #expect(error?.isPinMismatch == true, "no usable pin: \(String(describing: error))")
        #expect(!policy.evaluateServerTrust(trust, forDomain: nil))
    }
}
