import Dispatch
import FWLoop
import FWTLS
import FWTransport
import FWWire
import Testing
import TestSupport

// The transport's TLS decisions against `openssl s_server`: the trust handler and the client-identity
// handler get the connection's key and the request it is made for, trust comes first, the handshake
// waits for the identity (within the connect timeout), and the request's metrics carry what the
// handshake negotiated.
@Suite struct HTTPTransportTLSHandlersTests {
    /// What the handlers were asked, in order.
    struct Asked: Equatable {
        var handler: String
        var key: ConnectionKey
        var request: RequestID?
        var authorities: Int
    }

    /// Handlers that record what they are asked and answer as told, possibly later on another thread.
    final class Handlers: Sendable {
        let asked = LockedBox<[Asked]>([])
        let transport = LockedBox<HTTPTransport?>(nil)
        let askedDelegateIsTheRequests = LockedBox<[Bool]>([])
        let trust: ServerTrustDecision
        let identity: ClientIdentityDecision?
        let delay: Double

        /// `identity` nil: the identity handler never answers.
        init(trust: ServerTrustDecision = .trust, identity: ClientIdentityDecision?, delay: Double = 0) {
            self.trust = trust
            self.identity = identity
            self.delay = delay
        }

        func configuration(connectTimeout: Duration = .seconds(5)) throws -> HTTPTransport.Configuration {
            let root = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
            return HTTPTransport.Configuration(
                connectTimeout: connectTimeout, tls: TLSConfiguration(trustRoots: .certificates(root)),
                serverTrustHandler: { [self] trust, key, request, decide in
                    record(Asked(handler: "trust", key: key, request: request, authorities: 0))
                    #expect(trust.certificateChain.first?.subjectSummary == "localhost")
                    answer { decide(self.trust) }
                },
                clientIdentityHandler: { [self] key, request, authorities, decide in
                    record(Asked(handler: "identity", key: key, request: request, authorities: authorities.count))
                    guard let identity else { return }
                    answer { decide(identity) }
                })
        }

        private func record(_ asked: Asked) {
            self.asked.withLock { $0.append(asked) }
            let known = asked.request.flatMap { id in transport.withLock { $0 }?.delegate(of: id) } != nil
            askedDelegateIsTheRequests.withLock { $0.append(known) }
        }

        private func answer(_ body: @escaping @Sendable () -> Void) {
            if delay > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: body)
            } else {
                body()
            }
        }
    }

    static let requireClientCertificate = ["-Verify", "1", "-CAfile", TLSFixtures.path("client-ca.pem")]

    static func request(port: Int) -> TransportRequest {
        TransportRequest(key: ConnectionKey(scheme: "https", host: "127.0.0.1", port: port),
                         head: HTTPRequestHead(method: "GET", target: "/", headers: HTTPHeaders()),
                         idleTimeout: .seconds(5))
    }

    /// Runs one request with `handlers` against `server`; returns its id, outcome and metrics.
    static func run(_ handlers: Handlers, port: Int, connectTimeout: Duration = .seconds(5))
        throws -> (RequestID, RecordingDelegate.Outcome, [TransportMetrics]) {
        let fixture = try TransportFixture(try handlers.configuration(connectTimeout: connectTimeout))
        defer { fixture.close() }
        handlers.transport.withLock { $0 = fixture.transport }
        let delegate = RecordingDelegate()
        let id = fixture.transport.execute(request(port: port), delegate: delegate)
        let outcome = delegate.outcome(timeout: 10)
        let metrics = delegate.recorded.compactMap { event -> TransportMetrics? in
            if case .metrics(let metrics) = event { return metrics }
            return nil
        }
        return (id, outcome, metrics)
    }

    static func identity() throws -> TLSIdentity {
        try TLSIdentity(certificateChainPEMFile: TLSFixtures.path("client.pem"),
                        privateKeyPEMFile: TLSFixtures.path("client.key"))
    }

    @Test(arguments: [0, 0.05])
    func trustFirstThenTheIdentityForTheWaitingRequest(_ delay: Double) throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let handlers = Handlers(identity: .use(try Self.identity()), delay: delay)
        let (id, outcome, metrics) = try Self.run(handlers, port: server.port)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.bodyText.contains("FWNetworking Test Client"))
        let key = ConnectionKey(scheme: "https", host: "127.0.0.1", port: server.port)
        #expect(handlers.asked.withLock { $0 } == [
            Asked(handler: "trust", key: key, request: id, authorities: 0),
            Asked(handler: "identity", key: key, request: id, authorities: 1),
        ])
        #expect(handlers.askedDelegateIsTheRequests.withLock { $0 } == [true, true],
                "delegate(of:) knows the request while its connection is made")
        let tls = try #require(metrics.last?.tls)
        #expect(tls.version == .v1_3 && !tls.isResumed && tls.alpn == nil)
        #expect(tls.cipherSuite.id == 0x1302 && tls.cipherSuite.name == "TLS_AES_256_GCM_SHA384")
    }

    @Test(arguments: [false, true])
    func withoutAnIdentityTheServerRefuses(_ hasHandler: Bool) throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let handlers = Handlers(identity: .continueWithoutIdentity)
        var configuration = try handlers.configuration()
        if !hasHandler { configuration.clientIdentityHandler = nil }
        let fixture = try TransportFixture(configuration)
        defer { fixture.close() }
        let outcome = fixture.run(Self.request(port: server.port), timeout: 10)
        let error = try #require(outcome.error)
        #expect(error.isSecureConnectionFailed)
        #expect((error.underlying as? TLSError)?.isClientCertificateRequired == true, "\(error)")
        #expect(handlers.asked.withLock { $0.map(\.handler) } == (hasHandler ? ["trust", "identity"] : ["trust"]))
    }

    @Test func cancellingTheIdentityCancelsTheRequest() throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let (_, outcome, _) = try Self.run(Handlers(identity: .cancel), port: server.port)
        #expect(outcome.error?.isCancelled == true, "\(String(describing: outcome.error))")
    }

    @Test func theConnectTimeoutCoversTheWaitForAnIdentity() throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let started = Deadline.now()
        let (_, outcome, _) = try Self.run(Handlers(identity: nil), port: server.port,
                                           connectTimeout: .milliseconds(300))
        #expect(outcome.error?.isTimedOut == true, "\(String(describing: outcome.error))")
        #expect(Deadline.now() - started < .seconds(5))
    }

    @Test func aRejectedServerIsNeverAskedForAnIdentity() throws {
        let server = try OpenSSLServer.start(extra: Self.requireClientCertificate)
        defer { server.stop() }
        let rejection = TrustError.pinMismatch(reason: "test")
        let handlers = Handlers(trust: .reject(rejection), identity: .use(try Self.identity()))
        let (_, outcome, _) = try Self.run(handlers, port: server.port)
        #expect(outcome.error?.isServerTrustRejected == true)
        #expect(handlers.asked.withLock { $0.map(\.handler) } == ["trust"])
    }

    @Test func withoutACertificateRequestOnlyTrustIsAsked() throws {
        let server = try OpenSSLServer.start(extra: ["-tls1_2"])
        defer { server.stop() }
        let handlers = Handlers(identity: .cancel)
        let (_, outcome, metrics) = try Self.run(handlers, port: server.port)
        #expect(outcome.error == nil)
        #expect(handlers.asked.withLock { $0.map(\.handler) } == ["trust"])
        #expect(metrics.last?.tls?.version == .v1_2)
    }
}
