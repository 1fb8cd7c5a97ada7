import Foundation
@testable import FWURLSession
import Testing

@Suite struct SecCertificateTests {
    /// A self-signed Ed25519 certificate (CN=ed25519.fw.test): an algorithm Security has no SecKey for.
    static let ed25519CertificateBase64 = """
        MIIBSjCB/aADAgECAhRcnLdPfNKXLujudxzOHgUl27u0aTAFBgMrZXAwGjEYMBYGA1UEAwwPZWQyNTUxOS5mdy50ZXN0MCAXDTI2\
        MTEyMjE4MjMzOFoYDzIxMjYxMDI5MTgyMzM4WjAaMRgwFgYDVQQDDA9lZDI1NTE5LmZ3LnRlc3QwKjAFBgMrZXADIQAc1MsYADz1\
        L4UqL2cKop/qucqKqg7Oih0tMJj2jsS9ZKNTMFEwHQYDVR0OBBYEFNZLAWNEjZD1DClKhD3pcuQQtGg4MB8GA1UdIwQYMBaAFNZL\
        AWNEjZD1DClKhD3pcuQQtGg4MA8GA1UdEwEB/wQFMAMBAf8wBQYDK2VwA0EA9+92PULQP6jkLPgeiRgAUfpyYx1by2eb2612oKgh\
        J4W4NRcRdu6hbXBK1t5N/DvT+AynGOGmESFmz4VmU94XAQ==
        """

    @Test(arguments: ["valid-rsa.pem", "valid-ecdsa.pem", "root-ca.pem", "client.pem"])
    func derRoundTrips(_ file: String) throws {
        let der = try #require(try SecurityFixtures.derCertificates(file).first)
        let certificate = try #require(SecCertificateCreateWithData(kCFAllocatorDefault, der as CFData))
        #expect(SecCertificateCopyData(certificate) as Data == der)
        #expect(certificate.certificate.derBytes == [UInt8](der))
    }

    @Test func onlyExactlyOneDERCertificateIsAccepted() throws {
        let der = try #require(try SecurityFixtures.derCertificates("valid-rsa.pem").first)
        let pem = try SecurityFixtures.data("valid-rsa.pem")
        for (bytes, why) in [
            (pem, "PEM text"),
            (der + Data([0]), "a trailing byte"),
            (der.prefix(der.count - 1), "a truncated certificate"),
            (Data(), "no bytes"),
            (Data("certificate".utf8), "garbage"),
        ] {
            #expect(SecCertificateCreateWithData(nil, bytes as CFData) == nil, "\(why)")
        }
    }

    @Test(arguments: [
        ("valid-rsa.pem", "localhost"),
        ("wildcard.pem", "*.fw.test"),
        ("ip-only.pem", "FWNetworking IP leaf"),
        ("root-ca.pem", "FWNetworking Test Root CA"),
        ("client.pem", "FWNetworking Test Client"),
    ])
    func subjectSummaryIsTheCommonName(_ file: String, _ summary: String) throws {
        #expect(SecCertificateCopySubjectSummary(try SecurityFixtures.certificate(file)) == summary)
    }

    @Test func certificatesAreEqualWhenTheirDERIs() throws {
        let first = try SecurityFixtures.certificate("valid-ecdsa.pem")
        let again = try SecurityFixtures.certificate("valid-ecdsa-chain.pem")
        let other = try SecurityFixtures.certificate("valid-rsa.pem")
        #expect(first == again)
        #expect(first !== again)
        #expect(first != other)
        #expect(Set([first, again, other]).count == 2)
        #expect(SecCertificate(certificate: other.certificate) == other)
        #expect(first.description == "<SecCertificate localhost>")
    }
}
