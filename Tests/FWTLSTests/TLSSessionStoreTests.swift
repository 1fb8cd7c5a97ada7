import FWTLS
import Testing
import TestSupport

// TLSSessionStore: the key's normalisation, and what an engine hands its context's store (resumption
// itself is in TLSContextTests; FWTransport's bounded cache has its own tests).
@Suite struct TLSSessionStoreTests {
    @Test(arguments: [
        ("example.com", "example.com", true),
        ("Example.COM", "example.com", true),
        ("example.com.", "example.com", true),
        ("EXAMPLE.com.", "example.COM", true),
        ("example.com", "example.org", false),
        ("127.0.0.1", "127.0.0.1", true),
    ])
    func keysCompareHostsCaseInsensitivelyWithoutTheRootDot(_ one: String, _ other: String, _ same: Bool) {
        #expect((TLSSessionKey(host: one, port: 443) == TLSSessionKey(host: other, port: 443)) == same)
        #expect(TLSSessionKey(host: one, port: 443) != TLSSessionKey(host: one, port: 8443))
    }

    @Test func theKeyKeepsTheNormalisedHost() {
        let key = TLSSessionKey(host: "WWW.Example.COM.", port: 8443)
        #expect(key.host == "www.example.com")
        #expect(key.port == 8443)
    }

    @Test func anEngineOffersTheStoredSessionOfItsHostAndPort() throws {
        let server = try OpenSSLServer.start()
        let store = TestSessionStore()
        let context = try TLSContext(configuration: try Fixtures.configuration(), sessionStore: store)
        _ = try LoopbackTLSClient(context: context, port: server.port).get(afterHandshake: true)
        let key = TLSSessionKey(host: "localhost", port: server.port)
        #expect(store.keys == [key])
        #expect(store.lookups.isEmpty == false)
        #expect(try LoopbackTLSClient.resumes(context: context, port: server.port))
        #expect(store.lookups.last == key)
    }
}

// MARK: - TestSessionStore

/// A session store for the tests: keeps every session, without a limit, and records the lookups.
final class TestSessionStore: TLSSessionStore {
    private struct Contents {
        var sessions: [TLSSessionKey: TLSSession] = [:]
        var lookups: [TLSSessionKey] = []
    }

    private let contents = LockedBox(Contents())

    /// The keys that have a session.
    var keys: Set<TLSSessionKey> { contents.withLock { Set($0.sessions.keys) } }
    /// Every key asked for, in order.
    var lookups: [TLSSessionKey] { contents.withLock { $0.lookups } }

    func session(for key: TLSSessionKey) -> TLSSession? {
        contents.withLock { contents in
            contents.lookups.append(key)
            return contents.sessions[key]
        }
    }

    func store(_ session: TLSSession, for key: TLSSessionKey) {
        contents.withLock { $0.sessions[key] = session }
    }

    func removeSession(for key: TLSSessionKey) {
        _ = contents.withLock { $0.sessions.removeValue(forKey: key) }
    }
}
