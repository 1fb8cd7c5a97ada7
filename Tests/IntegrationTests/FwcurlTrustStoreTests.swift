import Foundation
import Testing
import TestSupport

// The system trust store found at run time, as a user meets it: fwcurl without --cacert against
// `openssl s_server`, with SSL_CERT_FILE / SSL_CERT_DIR naming the test CA.
@Suite struct FwcurlTrustStoreTests {
    @Test func sslCertFileIsTheTrustStoreWithoutCacert() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let bundle = TLSFixtures.path("root-ca.pem")
        let run = try Fwcurl.run(["-v", "-s", "https://localhost:\(server.port)/"],
                                 environment: ["SSL_CERT_FILE": bundle, "SSL_CERT_DIR": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text.contains("s_server"))
        #expect(run.stderr.contains("* trust store: \(bundle) (SSL_CERT_FILE bundle)"))
    }

    @Test func sslCertDirIsTheTrustStoreWithoutCacert() throws {
        let directory = try TemporaryDirectory(prefix: "fw-cert-dir")
        let hash = try Self.subjectHash(TLSFixtures.path("root-ca.pem"))
        try FileManager.default.copyItem(atPath: TLSFixtures.path("root-ca.pem"), toPath: directory.file("\(hash).0"))
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let run = try Fwcurl.run(["-v", "-s", "https://localhost:\(server.port)/"],
                                 environment: ["SSL_CERT_DIR": directory.path, "SSL_CERT_FILE": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("* trust store: \(directory.path) (SSL_CERT_DIR directory)"))
    }

    @Test func anotherCAInSSLCertFileIsRefusedWithExit60() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let run = try Fwcurl.run(["-s", "https://localhost:\(server.port)/"],
                                 environment: ["SSL_CERT_FILE": TLSFixtures.path("unknown-root-ca.pem")])
        #expect(run.status == 60, "\(run.stderr)")
    }

    /// `openssl x509 -hash`: the name a hashed directory gives the certificate (without ".0").
    static func subjectHash(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "x509", "-hash", "-noout", "-in", path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
