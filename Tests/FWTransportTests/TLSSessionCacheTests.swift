import FWTLS
@testable import FWTransport
import Testing

// TLSSessionCache: the transport's bounded session store, tested with marker objects in place of
// sessions (resumption through the transport is in IntegrationTests' TLSMetricsTests).
@Suite struct TLSSessionCacheTests {
    final class Marker: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    static func key(_ host: String, _ port: Int = 443) -> TLSSessionKey {
        TLSSessionKey(host: host, port: port)
    }

    @Test func keepsTheNewestSessionPerKey() {
        let cache = TLSSessionCache<Marker>(capacity: 4)
        cache.store(Marker("a1"), for: Self.key("a.test"))
        cache.store(Marker("a2"), for: Self.key("a.test"))
        cache.store(Marker("a-8443"), for: Self.key("a.test", 8443))
        #expect(cache.session(for: Self.key("a.test"))?.name == "a2")
        #expect(cache.session(for: Self.key("A.TEST."))?.name == "a2", "keys are normalised by TLSSessionKey")
        #expect(cache.session(for: Self.key("a.test", 8443))?.name == "a-8443")
        #expect(cache.session(for: Self.key("b.test")) == nil)
    }

    @Test func aFullCacheForgetsTheLeastRecentlyStoredKey() {
        let cache = TLSSessionCache<Marker>(capacity: 2)
        cache.store(Marker("a"), for: Self.key("a.test"))
        cache.store(Marker("b"), for: Self.key("b.test"))
        cache.store(Marker("a again"), for: Self.key("a.test"))
        #expect(cache.session(for: Self.key("b.test"))?.name == "b", "replacing a key evicts nothing")
        cache.store(Marker("c"), for: Self.key("c.test"))
        #expect(cache.session(for: Self.key("b.test")) == nil, "b was stored least recently")
        #expect(cache.session(for: Self.key("a.test"))?.name == "a again")
        #expect(cache.session(for: Self.key("c.test"))?.name == "c")
    }

    @Test func removedKeysAreForgotten() {
        let cache = TLSSessionCache<Marker>(capacity: 2)
        cache.store(Marker("a"), for: Self.key("a.test"))
        cache.removeSession(for: Self.key("a.test"))
        cache.removeSession(for: Self.key("never.test"))
        #expect(cache.session(for: Self.key("a.test")) == nil)
    }

    @Test(arguments: [0, -1])
    func aCacheWithoutCapacityKeepsNothing(_ capacity: Int) {
        let cache = TLSSessionCache<Marker>(capacity: capacity)
        cache.store(Marker("a"), for: Self.key("a.test"))
        #expect(cache.session(for: Self.key("a.test")) == nil)
    }

    @Test func theTransportsTLSContextKeepsItsSessionsHere() throws {
        let fixture = try TransportFixture()
        defer { fixture.close() }
        let context = try fixture.transport.tlsContext().get()
        #expect(context.sessionStore is TLSSessionCache<TLSSession>)
        #expect(try fixture.transport.tlsContext().get() === context, "one context (and store) per transport")
    }
}
