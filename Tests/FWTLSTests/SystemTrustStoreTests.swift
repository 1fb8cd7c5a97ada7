@testable import FWTLS
import Foundation
import Testing
import TestSupport

// The run-time search for the system's anchors: an injected environment and path-kind function for the
// order, temporary directories for the real file system and for loading.
@Suite struct SystemTrustStoreTests {
    /// A file system holding exactly `files` and `directories`.
    static func fileSystem(files: Set<String> = [], directories: Set<String> = []) -> (String) -> SystemTrustStore.PathKind? {
        { path in files.contains(path) ? .file : directories.contains(path) ? .directory : nil }
    }

    static let debianBundle = "/etc/ssl/certs/ca-certificates.crt"

    @Test func environmentFileWinsOverEveryDistribution() {
        let store = SystemTrustStore(
            environment: ["SSL_CERT_FILE": "/opt/ca.pem"],
            pathKind: Self.fileSystem(files: ["/opt/ca.pem", Self.debianBundle], directories: ["/etc/ssl/certs"])
        )
        #expect(store.locations == [.init(kind: .file, path: "/opt/ca.pem", origin: "SSL_CERT_FILE")])
    }

    @Test func bothVariablesAreUsedTogether() {
        let store = SystemTrustStore(
            environment: ["SSL_CERT_FILE": "/opt/ca.pem", "SSL_CERT_DIR": "/opt/certs"],
            pathKind: Self.fileSystem(files: ["/opt/ca.pem"], directories: ["/opt/certs"])
        )
        #expect(store.locations.map(\.path) == ["/opt/ca.pem", "/opt/certs"])
        #expect(store.locations.map(\.kind) == [.file, .directory])
    }

    @Test func aMissingVariablePathIsNotedAndPassedOver() {
        let store = SystemTrustStore(
            environment: ["SSL_CERT_FILE": "/nowhere/ca.pem", "SSL_CERT_DIR": ""],
            pathKind: Self.fileSystem(files: [Self.debianBundle])
        )
        #expect(store.locations.map(\.path) == [Self.debianBundle])
        #expect(store.searched.first == "/nowhere/ca.pem (SSL_CERT_FILE: missing)")
        #expect(store.searched.last == "\(Self.debianBundle) (Debian/Ubuntu/Arch: used)")
    }

    @Test func aVariableNamingTheWrongKindIsPassedOver() {
        let store = SystemTrustStore(
            environment: ["SSL_CERT_FILE": "/opt/certs"],
            pathKind: Self.fileSystem(directories: ["/opt/certs", "/etc/pki/tls/certs"])
        )
        #expect(store.searched.first == "/opt/certs (SSL_CERT_FILE: not a file)")
        #expect(store.locations == [.init(kind: .directory, path: "/etc/pki/tls/certs", origin: "RHEL/Fedora/CentOS")])
    }

    struct Layout: Sendable, CustomTestStringConvertible {
        let distribution: String
        let files: Set<String>
        let directories: Set<String>
        let expected: String
        var testDescription: String { distribution }
    }

    static let layouts: [Layout] = [
        Layout(distribution: "Debian/Ubuntu", files: [debianBundle], directories: ["/etc/ssl/certs"],
               expected: debianBundle),
        Layout(distribution: "RHEL 7+", files: ["/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"],
               directories: ["/etc/pki/tls/certs"], expected: "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"),
        Layout(distribution: "Fedora/CentOS", files: ["/etc/pki/tls/certs/ca-bundle.crt"],
               directories: ["/etc/pki/tls/certs"], expected: "/etc/pki/tls/certs/ca-bundle.crt"),
        Layout(distribution: "Alpine", files: ["/etc/ssl/cert.pem"], directories: ["/etc/ssl/certs"],
               expected: "/etc/ssl/cert.pem"),
        Layout(distribution: "openSUSE", files: ["/var/lib/ca-certificates/ca-bundle.pem"],
               directories: ["/var/lib/ca-certificates/openssl"], expected: "/var/lib/ca-certificates/ca-bundle.pem"),
        Layout(distribution: "Arch", files: ["/etc/ca-certificates/extracted/tls-ca-bundle.pem"],
               directories: [], expected: "/etc/ca-certificates/extracted/tls-ca-bundle.pem"),
        Layout(distribution: "directory only", files: [], directories: ["/etc/ssl/certs"], expected: "/etc/ssl/certs"),
    ]

    @Test(arguments: layouts) func eachDistributionLayoutIsFound(_ layout: Layout) {
        let store = SystemTrustStore(environment: [:], pathKind: Self.fileSystem(files: layout.files,
                                                                                directories: layout.directories))
        #expect(store.locations.map(\.path) == [layout.expected])
    }

    @Test func openSSLDefaultIsAskedLast() {
        let defaultFile = SystemTrustStore.openSSLDefaults[0].path
        let store = SystemTrustStore(environment: [:], pathKind: Self.fileSystem(files: [defaultFile]))
        #expect(store.locations.map(\.origin) == ["OpenSSL default"])
        #expect(store.searched.count == SystemTrustStore.knownBundles.count + SystemTrustStore.knownDirectories.count + 1)
    }

    @Test func nothingFoundSaysWhereItLooked() {
        let store = SystemTrustStore(environment: ["SSL_CERT_DIR": "/nowhere"], pathKind: Self.fileSystem())
        #expect(store.isEmpty)
        #expect(store.load() == nil)
        #expect(store.description.hasPrefix("no system trust store found; looked at /nowhere (SSL_CERT_DIR: missing)"))
        for location in SystemTrustStore.knownBundles + SystemTrustStore.knownDirectories {
            #expect(store.description.contains(location.path))
        }
    }

    // MARK: Real file system

    @Test func temporaryDirectoryBundleIsFoundAndLoads() throws {
        let directory = try TemporaryDirectory(prefix: "fw-trust-store")
        let bundle = directory.file("ca.pem")
        try FileManager.default.copyItem(atPath: Fixtures.path("root-ca.pem"), toPath: bundle)
        let store = SystemTrustStore(environment: ["SSL_CERT_FILE": bundle, "SSL_CERT_DIR": directory.file("none")],
                                     pathKind: SystemTrustStore.pathKind(of:))
        #expect(store.locations.map(\.path) == [bundle])
        #expect(store.load() != nil)
        #expect(SystemTrustStore.pathKind(of: directory.path) == .directory)
        #expect(SystemTrustStore.pathKind(of: directory.file("none")) == nil)
    }

    @Test func aBundleWithoutCertificatesDoesNotLoad() throws {
        let directory = try TemporaryDirectory(prefix: "fw-trust-store")
        let bundle = directory.file("empty.pem")
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: bundle))
        let store = SystemTrustStore(environment: ["SSL_CERT_FILE": bundle], pathKind: SystemTrustStore.pathKind(of:))
        #expect(store.locations.map(\.path) == [bundle])
        #expect(store.load() == nil)
    }
}
