import TestSupport
import FWTLS
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

/// The engine against real `openssl s_server` processes on 127.0.0.1.
@Suite struct TLSEngineTests {
    // MARK: Every fixture, handshake + trust

    struct FixtureRow: CustomTestStringConvertible, Sendable {
        let certificate: String
        let sendsIntermediate: Bool
        let serverName: String
        let outcome: TrustOutcome

        init(_ certificate: String, intermediate: Bool = true, name: String = "localhost", _ outcome: TrustOutcome) {
            self.certificate = certificate
            self.sendsIntermediate = intermediate
            self.serverName = name
            self.outcome = outcome
        }

        var testDescription: String {
            "\(certificate)\(sendsIntermediate ? "" : " without intermediate") as \(serverName)"
        }
    }

    static let fixtureRows: [FixtureRow] = [
        FixtureRow("valid-ecdsa.pem", .accepted),
        FixtureRow("valid-rsa.pem", .accepted),
        FixtureRow("valid-ecdsa.pem", name: "127.0.0.1", .accepted),
        FixtureRow("valid-ecdsa.pem", name: "::1", .accepted),
        FixtureRow("expired.pem", .expired),
        FixtureRow("not-yet-valid.pem", .notYetValid),
        FixtureRow("wrong-host.pem", .hostnameMismatch),
        FixtureRow("wildcard.pem", name: "api.fw.test", .accepted),
        FixtureRow("wildcard.pem", name: "fw.test", .hostnameMismatch),
        FixtureRow("ip-only.pem", name: "127.0.0.1", .accepted),
        FixtureRow("ip-only.pem", .hostnameMismatch),
        FixtureRow("cn-only.pem", .accepted),
        FixtureRow("self-signed.pem", intermediate: false, .unknownRoot),
        FixtureRow("unknown-root-leaf.pem", intermediate: false, .unknownRoot),
        FixtureRow("valid-ecdsa.pem", intermediate: false, .unknownRoot),
        FixtureRow("revoked.pem", .accepted),
    ]

    @Test(arguments: fixtureRows)
    func fixtureHandshakeAndTrust(_ row: FixtureRow) throws {
        let server = try OpenSSLServer.start(
            certificate: row.certificate, chain: row.sendsIntermediate ? "intermediate-ca.pem" : nil
        )
        let context = try TLSContext(configuration: try Fixtures.configuration())
        let client = try LoopbackTLSClient(context: context, serverName: row.serverName, port: server.port)
        let trust = try client.connect()
        #expect(trust.certificateChain.count == (row.sendsIntermediate ? 2 : 1))
        #expect(trust.certificateChain.first == (try Fixtures.certificate(row.certificate)))
        #expect(trust.host == row.serverName)
        #expect(TrustOutcome.of { () throws(TrustError) in try DefaultTrustEvaluator().evaluate(trust) } == row.outcome)
        if row.outcome == .accepted {
            #expect(try client.get().hasPrefix("HTTP/1.0 200 ok"))
        }
    }

    // MARK: Pinning on a live chain

    @Test func pinnedAndUnpinnedEvaluationOfALiveChain() throws {
        let server = try OpenSSLServer.start()
        let context = try TLSContext(configuration: try Fixtures.configuration())
        let trust = try LoopbackTLSClient(context: context, port: server.port).connect()
        let leaf = try Fixtures.certificate("valid-ecdsa.pem")
        let other = try Fixtures.certificate("valid-rsa.pem")
        let cases: [(String, any TrustEvaluator, TrustOutcome)] = [
            ("unpinned", DefaultTrustEvaluator(), .accepted),
            ("certificate", PinnedCertificatesTrustEvaluator(certificates: [leaf]), .accepted),
            ("wrong certificate", PinnedCertificatesTrustEvaluator(certificates: [other]), .pinMismatch),
            ("public key", PublicKeysTrustEvaluator(keys: [leaf.publicKey]), .accepted),
            ("wrong public key", PublicKeysTrustEvaluator(keys: [other.publicKey]), .pinMismatch),
            ("SPKI with backup", try SPKIPinsTrustEvaluator(pins: "\(other.spkiPin);\(leaf.spkiPin)"), .accepted),
            ("wrong SPKI", try SPKIPinsTrustEvaluator(pins: other.spkiPin), .pinMismatch),
        ]
        for (name, evaluator, outcome) in cases {
            #expect(TrustOutcome.of { () throws(TrustError) in try evaluator.evaluate(trust) } == outcome, "\(name)")
        }
    }

    @Test func systemTrustDoesNotKnowTheFixtureRoot() throws {
        let server = try OpenSSLServer.start()
        let context = try TLSContext(configuration: TLSConfiguration())
        let trust = try LoopbackTLSClient(context: context, port: server.port).connect()
        let outcome = TrustOutcome.of { () throws(TrustError) in try DefaultTrustEvaluator().evaluate(trust) }
        #expect(outcome == .unknownRoot)
    }

    // MARK: Protocol versions

    struct VersionRow: CustomTestStringConvertible, Sendable {
        let server: [String]
        let minimum: TLSVersion
        let maximum: TLSVersion
        let expected: TLSVersion?

        var testDescription: String { "server \(server) vs client \(minimum)...\(maximum)" }
    }

    static let versionRows: [VersionRow] = [
        VersionRow(server: [], minimum: .v1_2, maximum: .v1_3, expected: .v1_3),
        VersionRow(server: ["-tls1_2"], minimum: .v1_2, maximum: .v1_3, expected: .v1_2),
        VersionRow(server: ["-tls1_3"], minimum: .v1_2, maximum: .v1_3, expected: .v1_3),
        VersionRow(server: [], minimum: .v1_2, maximum: .v1_2, expected: .v1_2),
        VersionRow(server: [], minimum: .v1_3, maximum: .v1_3, expected: .v1_3),
        VersionRow(server: ["-tls1_3"], minimum: .v1_2, maximum: .v1_2, expected: nil),
        VersionRow(server: ["-tls1_2"], minimum: .v1_3, maximum: .v1_3, expected: nil),
    ]

    @Test(arguments: versionRows)
    func protocolVersions(_ row: VersionRow) throws {
        let server = try OpenSSLServer.start(extra: row.server)
        let configuration = try Fixtures.configuration {
            $0.minimumVersion = row.minimum
            $0.maximumVersion = row.maximum
        }
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: configuration), port: server.port)
        guard let expected = row.expected else {
            do {
                try client.handshake()
                Issue.record("the handshake must fail")
            } catch let error as TLSError {
                #expect(error.isUnsupportedProtocolVersion, "\(error)")
                #expect(error.reason.contains("version"))
            }
            return
        }
        try client.handshake()
        #expect(client.engine.negotiatedVersion == expected)
        #expect(client.engine.negotiatedVersion?.name == expected.name)
        let cipher = try #require(client.engine.cipher)
        let page = try client.get()
        #expect(page.contains("New, \(expected.name), Cipher is \(cipher)"), "the server agrees")
    }

    // MARK: ALPN

    @Test func alpnSelectsHTTP11WhenTheServerSpeaksIt() throws {
        let server = try OpenSSLServer.start(extra: ["-alpn", "http/1.1"])
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        try client.handshake()
        #expect(client.engine.alpn == "http/1.1")
    }

    @Test func alpnIsNilWhenTheServerIgnoresIt() throws {
        let server = try OpenSSLServer.start()
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        try client.handshake()
        #expect(client.engine.alpn == nil)
    }

    // MARK: Closing

    @Test func closeNotifyEndsTheStreamCleanly() throws {
        let server = try OpenSSLServer.start()
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        try client.handshake()
        #expect(!client.engine.receivedCloseNotify)
        let reply = try client.get()
        #expect(reply.hasSuffix("</BODY></HTML>\r\n\r\n"))
        #expect(client.engine.receivedCloseNotify)
        #expect(throws: Never.self) { try client.engine.socketEOF() }
        #expect(client.engine.pendingCiphertext().isEmpty, "get() flushed our close_notify")
    }

    @Test func endOfFileWithoutCloseNotifyIsTruncation() throws {
        let server = try OpenSSLServer.start(www: false)
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        try client.handshake()
        try client.engine.send(plaintext: Array("GET / HTTP/1.0\r\n\r\n".utf8))
        try client.flush()
        server.stop()
        while let bytes = try client.socket.read() {
            client.engine.receive(ciphertext: bytes)
            _ = try client.engine.readPlaintext()
        }
        #expect(!client.engine.receivedCloseNotify)
        do {
            try client.engine.socketEOF()
            Issue.record("EOF without close_notify must throw")
        } catch {
            #expect(error.isTruncated)
        }
        #expect(throws: TLSError.self) { try client.engine.readPlaintext() }
    }

    @Test func aForgedRecordAfterTheHandshakeIsAProtocolError() throws {
        let server = try OpenSSLServer.start()
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        try client.handshake()
        client.engine.receive(ciphertext: [0x17, 0x03, 0x03, 0x00, 0x20] + [UInt8](repeating: 0x5A, count: 32))
        do {
            _ = try client.engine.readPlaintext()
            Issue.record("a record that does not decrypt must fail")
        } catch {
            #expect(error.isProtocolError, "\(error)")
        }
        #expect(throws: TLSError.self, "the failure sticks") { try client.engine.send(plaintext: [1]) }
        #expect(client.engine.hasPendingCiphertext, "OpenSSL queued an alert for the peer")
    }

    @Test func endOfFileDuringTheHandshakeFailsIt() throws {
        let server = try OpenSSLServer.start()
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: try Fixtures.configuration()),
                                           port: server.port)
        server.stop()
        do {
            try client.handshake()
            Issue.record("the handshake must fail")
        } catch let error as TLSError {
            #expect(error.isHandshakeFailure)
        }
    }

    @Test func closeBeforeTheHandshakeSendsNothing() throws {
        let context = try TLSContext(configuration: try Fixtures.configuration())
        let engine = try TLSEngine(context: context, serverName: "localhost", port: 443)
        engine.close()
        #expect(!engine.hasPendingCiphertext)
        engine.close()
    }

    // MARK: Mutual TLS

    static let clientAuth = ["-Verify", "1", "-CAfile", Fixtures.path("client-ca.pem")]

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func mutualTLSWithAConfiguredIdentity(_ version: TLSVersion) throws {
        let server = try OpenSSLServer.start(extra: Self.clientAuth)
        let configuration = try Fixtures.configuration {
            $0.maximumVersion = version
            $0.clientIdentity = try? Fixtures.clientIdentity()
        }
        #expect(configuration.clientIdentity != nil)
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: configuration), port: server.port)
        try client.handshake { Issue.record("a configured identity is sent without asking"); return nil }
        #expect(try client.get().contains("FWNetworking Test Client"))
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func mutualTLSWithAnIdentityChosenDuringTheHandshake(_ version: TLSVersion) throws {
        let server = try OpenSSLServer.start(extra: Self.clientAuth)
        let configuration = try Fixtures.configuration { $0.maximumVersion = version }
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: configuration), port: server.port)
        let identity = try TLSIdentity(pkcs12File: Fixtures.path("client.p12"), password: Fixtures.clientPassword)
        var askedFor: [[UInt8]] = []
        try client.handshake {
            askedFor = client.engine.acceptableClientCertificateAuthorities
            return identity
        }
        #expect(askedFor.count == 1, "s_server names client-ca as the acceptable CA")
        #expect(try client.get().contains("FWNetworking Test Client"))
    }

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func mutualTLSWithoutAnIdentityFails(_ version: TLSVersion) throws {
        let server = try OpenSSLServer.start(extra: Self.clientAuth)
        let configuration = try Fixtures.configuration { $0.maximumVersion = version }
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: configuration), port: server.port)
        var asked = false
        do {
            try client.handshake {
                asked = true
                return nil
            }
            _ = try client.get()
            Issue.record("the server must refuse a client without a certificate")
        } catch let error as TLSError {
            #expect(error.isClientCertificateRequired, "\(error)")
        }
        #expect(asked)
    }

    @Test func mutualTLSWithAnUntrustedIdentityIsRejected() throws {
        let server = try OpenSSLServer.start(extra: Self.clientAuth + ["-verify_return_error"])
        let wrongIdentity = try TLSIdentity(
            certificateChainPEMFile: Fixtures.path("valid-ecdsa.pem"),
            privateKeyPEMFile: Fixtures.path("valid-ecdsa.key")
        )
        let configuration = try Fixtures.configuration { $0.maximumVersion = .v1_2 }
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: configuration), port: server.port)
        do {
            try client.handshake { wrongIdentity }
            _ = try client.get()
            Issue.record("the server must refuse a certificate from another CA")
        } catch let error as TLSError {
            #expect(error.isClientCertificateRejected, "\(error)")
        }
    }

    enum IdentitySource: String, CaseIterable, Sendable { case askedDuringTheHandshake, configured, notRequested }

    @Test(arguments: IdentitySource.allCases)
    func theEngineSaysWhetherItWaitsForAndWasGivenAnIdentity(_ source: IdentitySource) throws {
        let server = try OpenSSLServer.start(extra: source == .notRequested ? [] : Self.clientAuth)
        let configuration = try Fixtures.configuration {
            if source == .configured { $0.clientIdentity = try? Fixtures.clientIdentity() }
        }
        let client = try LoopbackTLSClient(context: try TLSContext(configuration: configuration), port: server.port)
        #expect(!client.engine.isAwaitingClientIdentity && !client.engine.hasAnsweredClientIdentityRequest)
        var asked = 0
        try client.handshake {
            asked += 1
            #expect(client.engine.isAwaitingClientIdentity)
            #expect(!client.engine.hasAnsweredClientIdentityRequest)
            #expect((try? client.engine.handshake()) == .clientIdentityRequested, "it waits until answered")
            return try? Fixtures.clientIdentity()
        }
        #expect(asked == (source == .askedDuringTheHandshake ? 1 : 0))
        #expect(!client.engine.isAwaitingClientIdentity)
        #expect(client.engine.hasAnsweredClientIdentityRequest == (source == .askedDuringTheHandshake))
        let shown = source == .notRequested ? "no client certificate" : "FWNetworking Test Client"
        #expect(try client.get().contains(shown))
    }

    // MARK: OCSP stapling

    @Test func stapledOCSPResponseReachesTheRevocationEvaluator() throws {
        let good = try Fixtures.bytes("ocsp-valid-ecdsa-good.der")
        let server = try OpenSSLServer.start(extra: ["-status_file", Fixtures.path("ocsp-valid-ecdsa-good.der")])
        let stapling = try Fixtures.configuration { $0.requestsOCSPStapling = true }
        let trust = try LoopbackTLSClient(context: try TLSContext(configuration: stapling), port: server.port).connect()
        #expect(trust.stapledOCSPResponse == good)
        let strict = RevocationTrustEvaluator(requiresStapledResponse: true)
        #expect(TrustOutcome.of { () throws(TrustError) in try strict.evaluate(trust) } == .accepted)
        let plain = try Fixtures.configuration()
        let plainContext = try TLSContext(configuration: plain)
        let unstapled = try LoopbackTLSClient(context: plainContext, port: server.port).connect()
        #expect(unstapled.stapledOCSPResponse == nil, "no staple unless asked for")
    }

    @Test func revokedLeafFailsWithAStapledResponse() throws {
        let server = try OpenSSLServer.start(
            certificate: "revoked.pem", extra: ["-status_file", Fixtures.path("ocsp-revoked.der")]
        )
        let stapling = try Fixtures.configuration { $0.requestsOCSPStapling = true }
        let trust = try LoopbackTLSClient(context: try TLSContext(configuration: stapling), port: server.port).connect()
        #expect(TrustOutcome.of { () throws(TrustError) in try DefaultTrustEvaluator().evaluate(trust) } == .accepted)
        #expect(TrustOutcome.of { () throws(TrustError) in
            try RevocationTrustEvaluator().evaluate(trust)
        } == .revoked)
    }

    // MARK: Without a server

    @Test func clientHelloCarriesSNIForNamesOnly() throws {
        let context = try TLSContext(configuration: try Fixtures.configuration())
        for (name, carriesName) in [("example.test", true), ("127.0.0.1", false), ("::1", false), ("[::1]", false)] {
            let engine = try TLSEngine(context: context, serverName: name, port: 443)
            #expect(try engine.handshake() == .inProgress)
            let hello = engine.pendingCiphertext()
            #expect(hello.first == 0x16, "a handshake record")
            let text = String(decoding: hello, as: UTF8.self)
            #expect(text.contains("http/1.1"), "ALPN")
            #expect(text.contains(name) == carriesName, "\(name)")
            #expect(engine.negotiatedVersion == nil)
            #expect(engine.peerCertificateChain.isEmpty)
        }
    }

    @Test(arguments: [
        Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8),
        [0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00],
        [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28],
        [UInt8](repeating: 0xFF, count: 64),
    ])
    func garbageFromThePeerIsAnError(_ garbage: [UInt8]) throws {
        let context = try TLSContext(configuration: try Fixtures.configuration())
        let engine = try TLSEngine(context: context, serverName: "localhost", port: 443)
        #expect(try engine.handshake() == .inProgress)
        _ = engine.pendingCiphertext()
        engine.receive(ciphertext: garbage)
        do {
            _ = try engine.handshake()
            Issue.record("garbage must fail the handshake")
        } catch {
            #expect(error.isHandshakeFailure || error.isUnsupportedProtocolVersion, "\(error)")
            #expect(!error.reason.isEmpty)
        }
        engine.receive(ciphertext: garbage)
        #expect(throws: TLSError.self) { try engine.handshake() }
        #expect(throws: TLSError.self) { try engine.socketEOF() }
    }
}
