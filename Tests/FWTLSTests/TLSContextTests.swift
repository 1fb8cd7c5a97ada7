import TestSupport
import FWTLS
import Testing

@Suite struct TLSContextTests {
    // MARK: Resumption

    @Test(arguments: [TLSVersion.v1_2, .v1_3])
    func secondConnectionToTheSameHostResumes(_ version: TLSVersion) throws {
        let server = try OpenSSLServer.start()
        let context = try TLSContext(configuration: try Fixtures.configuration { $0.maximumVersion = version },
                                     sessionStore: TestSessionStore())
        let first = try LoopbackTLSClient(context: context, port: server.port)
        try first.handshake()
        #expect(!first.engine.isResumed)
        #expect(try first.get().contains("New, \(version.name)"))

        let second = try LoopbackTLSClient(context: context, port: server.port)
        try second.handshake()
        #expect(second.engine.isResumed)
        #expect(second.engine.negotiatedVersion == version)
        let trust = second.engine.makeServerTrust()
        #expect(trust.certificateChain == (try Fixtures.chain("valid-ecdsa.pem")), "the session keeps the chain")
        let pin = try Fixtures.certificate("valid-ecdsa.pem").spkiPin
        let otherPin = try Fixtures.certificate("valid-rsa.pem").spkiPin
        #expect(throws: Never.self) { try SPKIPinsTrustEvaluator(pins: pin).evaluate(trust) }
        #expect(throws: TrustError.self, "pins hold on resumed sessions") {
            try SPKIPinsTrustEvaluator(pins: otherPin).evaluate(trust)
        }
        #expect(try second.get().contains("Reused, \(version.name)"))
    }

    @Test func sessionsAreKeptPerHostAndPort() throws {
        let server = try OpenSSLServer.start()
        let otherServer = try OpenSSLServer.start()
        let context = try TLSContext(configuration: try Fixtures.configuration(), sessionStore: TestSessionStore())
        _ = try LoopbackTLSClient(context: context, port: server.port).get(afterHandshake: true)
        #expect(try !LoopbackTLSClient.resumes(context: context, port: otherServer.port))
        #expect(try !LoopbackTLSClient.resumes(context: context, serverName: "127.0.0.1", port: server.port))
        #expect(
            try LoopbackTLSClient.resumes(context: context, serverName: "LOCALHOST.", port: server.port),
            "host names are compared case-insensitively without the root dot"
        )
    }

    @Test func removedSessionsAreNotOffered() throws {
        let server = try OpenSSLServer.start()
        let store = TestSessionStore()
        let context = try TLSContext(configuration: try Fixtures.configuration(), sessionStore: store)
        _ = try LoopbackTLSClient(context: context, port: server.port).get(afterHandshake: true)
        #expect(store.keys == [TLSSessionKey(host: "localhost", port: server.port)])
        context.removeSession(host: "LocalHost.", port: server.port)
        #expect(store.keys.isEmpty)
        #expect(try !LoopbackTLSClient.resumes(context: context, port: server.port))
    }

    @Test func discardedSessionsAreNotOffered() throws {
        let server = try OpenSSLServer.start()
        let context = try TLSContext(configuration: try Fixtures.configuration(), sessionStore: TestSessionStore())
        let first = try LoopbackTLSClient(context: context, port: server.port)
        try first.handshake()
        first.engine.discardSession()
        _ = try first.get()
        #expect(
            try !LoopbackTLSClient.resumes(context: context, port: server.port),
            "tickets that arrive after discardSession() are not kept either"
        )
    }

    @Test func withoutAStoreEveryConnectionMakesAFullHandshake() throws {
        let server = try OpenSSLServer.start()
        let context = try TLSContext(configuration: try Fixtures.configuration())
        #expect(context.sessionStore == nil)
        _ = try LoopbackTLSClient(context: context, port: server.port).get(afterHandshake: true)
        #expect(try !LoopbackTLSClient.resumes(context: context, port: server.port))
    }

    @Test func resumptionTurnedOffLeavesTheStoreAlone() throws {
        let server = try OpenSSLServer.start()
        let store = TestSessionStore()
        let context = try TLSContext(configuration: try Fixtures.configuration { $0.resumesSessions = false },
                                     sessionStore: store)
        #expect(context.sessionStore == nil)
        _ = try LoopbackTLSClient(context: context, port: server.port).get(afterHandshake: true)
        #expect(try !LoopbackTLSClient.resumes(context: context, port: server.port))
        #expect(store.keys.isEmpty)
    }

    // MARK: Configuration

    @Test func refusesUnusableConfigurations() throws {
        let cases: [(String, TLSConfiguration)] = [
            ("empty ALPN name", TLSConfiguration(applicationProtocols: [""])),
            ("long ALPN name", TLSConfiguration(applicationProtocols: [String(repeating: "a", count: 256)])),
            ("minimum above maximum", TLSConfiguration(minimumVersion: .v1_3, maximumVersion: .v1_2)),
        ]
        for (name, configuration) in cases {
            do {
                _ = try TLSContext(configuration: configuration)
                Issue.record("\(name) must be refused")
            } catch {
                #expect(error.isInternalError, "\(name)")
            }
        }
    }

    @Test func withoutALPNTheHelloOffersNone() throws {
        let context = try TLSContext(configuration: TLSConfiguration(applicationProtocols: []))
        let engine = try TLSEngine(context: context, serverName: "localhost", port: 443)
        _ = try engine.handshake()
        #expect(!String(decoding: engine.pendingCiphertext(), as: UTF8.self).contains("http/1.1"))
        #expect(context.configuration.applicationProtocols.isEmpty)
    }
}

extension LoopbackTLSClient {
    /// Handshake, then a GET (which reads the TLS 1.3 tickets); returns the page.
    func get(afterHandshake: Bool) throws -> String {
        try handshake()
        return try get()
    }

    /// Whether a new connection resumes a cached session (the connection is closed again at once, so
    /// the single-threaded s_server is free for the next one).
    static func resumes(context: TLSContext, serverName: String = "localhost", port: Int) throws -> Bool {
        let client = try LoopbackTLSClient(context: context, serverName: serverName, port: port)
        try client.handshake()
        return client.engine.isResumed
    }
}
