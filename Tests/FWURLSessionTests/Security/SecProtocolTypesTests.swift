import Foundation
@testable import FWURLSession
import FWTLS
import Testing

// tls_ciphersuite_t's raw values are IANA numbers: every case's name, with the TLS_ prefix, must be the
// registry name OpenSSL gives that number (`openssl ciphers -V -stdname`), for the suites this OpenSSL
// still has (3DES is gone from OpenSSL 3's default provider).
@Suite struct SecProtocolTypesTests {
    static let allSuites: [tls_ciphersuite_t] = [
        .RSA_WITH_3DES_EDE_CBC_SHA, .RSA_WITH_AES_128_CBC_SHA, .RSA_WITH_AES_256_CBC_SHA,
        .RSA_WITH_AES_128_CBC_SHA256, .RSA_WITH_AES_256_CBC_SHA256, .RSA_WITH_AES_128_GCM_SHA256,
        .RSA_WITH_AES_256_GCM_SHA384, .AES_128_GCM_SHA256, .AES_256_GCM_SHA384, .CHACHA20_POLY1305_SHA256,
        .ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA, .ECDHE_ECDSA_WITH_AES_128_CBC_SHA, .ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
        .ECDHE_RSA_WITH_3DES_EDE_CBC_SHA, .ECDHE_RSA_WITH_AES_128_CBC_SHA, .ECDHE_RSA_WITH_AES_256_CBC_SHA,
        .ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, .ECDHE_ECDSA_WITH_AES_256_CBC_SHA384,
        .ECDHE_RSA_WITH_AES_128_CBC_SHA256, .ECDHE_RSA_WITH_AES_256_CBC_SHA384,
        .ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        .ECDHE_RSA_WITH_AES_128_GCM_SHA256, .ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, .ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// IANA number → registry name, from the openssl CLI.
    static let openSSLNames: [UInt16: String] = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "ciphers", "-V", "-stdname", "ALL:COMPLEMENTOFALL:@SECLEVEL=0"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return [:] }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var names: [UInt16: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            let bytes = words.first?.split(separator: ",").compactMap { UInt8($0.dropFirst(2), radix: 16) } ?? []
            guard words.count > 2, bytes.count == 2 else { continue }
            names[UInt16(bytes[0]) << 8 | UInt16(bytes[1])] = String(words[2])
        }
        return names
    }()

    @Test func everyCaseIsItsIANANumber() {
        #expect(Self.allSuites.count == 26, "FoundationNetworking's cases")
        #expect(Set(Self.allSuites.map(\.rawValue)).count == Self.allSuites.count)
        var checked = 0
        for suite in Self.allSuites {
            guard let name = Self.openSSLNames[suite.rawValue] else {
                #expect("\(suite)".contains("3DES"), "only 3DES may be missing from OpenSSL: \(suite)")
                continue
            }
            #expect(name == "TLS_\(suite)")
            checked += 1
        }
        #expect(checked == Self.allSuites.count - 3, "every suite but the three 3DES ones")
    }

    @Test func negotiatedSuitesMapByNumber() {
        let known = TLSCipherSuite(id: 0xC02B, name: "ECDHE-ECDSA-AES128-GCM-SHA256", standardName: nil)
        #expect(tls_ciphersuite_t(known) == .ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
        let unknown = TLSCipherSuite(id: 0x1304, name: "TLS_AES_128_CCM_SHA256", standardName: nil)
        #expect(tls_ciphersuite_t(unknown) == nil)
    }

    @Test(arguments: [
        (TLSVersion.v1_0, tls_protocol_version_t.TLSv10), (.v1_1, .TLSv11), (.v1_2, .TLSv12), (.v1_3, .TLSv13),
    ])
    func negotiatedVersionsMapToTheirCase(_ version: TLSVersion, _ expected: tls_protocol_version_t) {
        #expect(tls_protocol_version_t(version) == expected)
    }
}
