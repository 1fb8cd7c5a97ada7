import Foundation
import FWNetworking
import Testing
import TestSupport

// Authentication through the manager against `openssl s_server`: the security policy judges server trust
// (pins accepted and refused, a refusal failing the task with -1202, the failing URL, the peer trust and
// the policy's reason), the four outcomes of `authenticationChallengeHandler`, the session-level block
// that bypasses the policy, and a task's own delegate that answers its connection's challenge.

// MARK: - Helpers

/// The error an `authenticationChallengeHandler` answers with.
struct RefusedByHandler: Error, Equatable {}

/// A task's own delegate that answers every task-level challenge with `answer`.
final class OwnChallengeDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let answer: URLSession.AuthChallengeDisposition
    let asked = LockedBox(0)

    init(answer: URLSession.AuthChallengeDisposition) {
        self.answer = answer
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        asked.withLock { $0 += 1 }
        completionHandler(answer, nil)
    }
}

extension ManagerTests {
    /// The DER of the first certificate of each fixture.
    static func der(_ names: [String]) throws -> Set<Data> {
        Set(try names.map { Data(try Certificate.certificates(pemFile: TLSFixtures.path($0))[0].derBytes) })
    }

    /// A manager trusting the fixture root, with `policy`.
    static func tlsManager(_ policy: SecurityPolicy) throws -> URLSessionManager {
        let manager = ManagerTests.manager(try fixtureTrust())
        manager.securityPolicy = policy
        return manager
    }
}

// MARK: - Tests

@Suite struct URLSessionManagerAuthenticationTests {
    struct PolicyRow: Sendable, CustomTestStringConvertible {
        var name: String
        var certificate: String
        var chain: String? = "intermediate-ca.pem"
        var mode: SSLPinningMode
        var pins: [String]
        var trusted: Bool
        var testDescription: String { name }
    }

    static let rows: [PolicyRow] = [
        .init(name: "no pinning, valid chain", certificate: "valid-ecdsa.pem", mode: .none, pins: [], trusted: true),
        .init(name: "no pinning, unknown root", certificate: "self-signed.pem", chain: nil, mode: .none, pins: [],
              trusted: false),
        .init(name: "public key pinned", certificate: "valid-ecdsa.pem", mode: .publicKey, pins: ["valid-ecdsa.pem"],
              trusted: true),
        .init(name: "another public key pinned", certificate: "valid-ecdsa.pem", mode: .publicKey,
              pins: ["valid-rsa.pem"], trusted: false),
        .init(name: "certificate pinned", certificate: "valid-rsa.pem", mode: .certificate,
              pins: ["intermediate-ca.pem"], trusted: true),
        .init(name: "another certificate pinned", certificate: "valid-rsa.pem", mode: .certificate,
              pins: ["unknown-root-ca.pem"], trusted: false),
    ]

    @Test(arguments: rows)
    func serverTrustGoesThroughThePolicy(_ row: PolicyRow) throws {
        let server = try OpenSSLServer.start(certificate: row.certificate, chain: row.chain)
        defer { server.stop() }
        let policy = SecurityPolicy(pinningMode: row.mode, pinnedCertificates: try ManagerTests.der(row.pins))
        let manager = try ManagerTests.tlsManager(policy)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let result = try #require(ManagerTests.load(manager, URLRequest(url: url)))
        guard !row.trusted else {
            #expect(result.status == 200 && result.error == nil)
            return
        }
        let error = try #require(result.urlError)
        #expect(error.code == .serverCertificateUntrusted)
        #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        let trust = try #require(error.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] as? SecTrust)
        let reason = try #require((error.userInfo[NSUnderlyingErrorKey] as? TrustError)?.reason)
        // The reason is the policy's own: evaluating the peer trust again gives it.
        #expect(throws: TrustError.self) { try policy.evaluate(trust, forDomain: "127.0.0.1") }
        #expect(trust.rejectionReason?.reason == reason)
        #expect(!reason.contains("the delegate rejected"))
    }

    enum Outcome: String, CaseIterable, Sendable {
        case handled, error, credential, defaultHandling, cancel, reject

        func result(_ challenge: URLAuthenticationChallenge,
                    _ complete: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
            -> URLSessionManager.AuthenticationChallengeResult {
            let trust = challenge.protectionSpace.serverTrust
            switch self {
            case .handled:
                complete(.useCredential, trust.map(URLCredential.init(trust:)))
                return .handled
            case .error: return .error(RefusedByHandler())
            case .credential: return trust.map { .credential(URLCredential(trust: $0)) } ?? .handled
            case .defaultHandling: return .disposition(.performDefaultHandling)
            case .cancel: return .disposition(.cancelAuthenticationChallenge)
            case .reject: return .disposition(.rejectProtectionSpace)
            }
        }
    }

    @Test(arguments: Outcome.allCases)
    func theChallengeHandlersOutcomes(_ outcome: Outcome) throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        // A policy that refuses this server: only the handler can let it through.
        let manager = try ManagerTests.tlsManager(
            SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try ManagerTests.der(["valid-rsa.pem"])))
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.authenticationChallengeHandler = { _, _, challenge, complete in outcome.result(challenge, complete) }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let result = try #require(ManagerTests.load(manager, URLRequest(url: url)))
        switch outcome {
        case .handled, .credential:
            #expect(result.status == 200 && result.error == nil)
        case .error:
            #expect(result.error as? RefusedByHandler == RefusedByHandler())
        case .defaultHandling:
            #expect(result.urlError?.code == .serverCertificateUntrusted)
            #expect((result.urlError?.userInfo[NSUnderlyingErrorKey] as? TrustError)?.reason.contains("pinned") == true)
        case .cancel:
            #expect(result.urlError?.code == .cancelled)
        case .reject:
            #expect(result.urlError?.code == .serverCertificateUntrusted)
            #expect((result.urlError?.userInfo[NSUnderlyingErrorKey] as? TrustError)?.reason
                == "the delegate rejected the protection space")
        }
    }

    @Test func theSessionLevelBlockBypassesThePolicy() throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        let manager = try ManagerTests.tlsManager(
            SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try ManagerTests.der(["valid-rsa.pem"])))
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let asked = LockedBox(0)
        manager.sessionDidReceiveAuthenticationChallenge = { _, _, _ in
            asked.withLock { $0 += 1 }
            return .performDefaultHandling
        }
        let handlerAsked = LockedBox(0)
        manager.authenticationChallengeHandler = { _, _, _, _ in
            handlerAsked.withLock { $0 += 1 }
            return .disposition(.cancelAuthenticationChallenge)
        }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let result = try #require(ManagerTests.load(manager, URLRequest(url: url)))
        #expect(result.status == 200, "default handling trusts the fixture root, whatever the policy pins")
        #expect(asked.withLock { $0 } == 1 && handlerAsked.withLock { $0 } == 0)
    }

    @Test func aTasksOwnDelegateAnswersItsConnectionsChallenge() throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        let manager = try ManagerTests.tlsManager(.default)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let own = OwnChallengeDelegate(answer: .cancelAuthenticationChallenge)
        let result = LockedBox<ManagerResult?>(nil)
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let task = manager.dataTask(request: URLRequest(url: url), completionHandler: ManagerTests.record(into: result))
        task.delegate = own
        task.resume()
        let done = try #require(ManagerTests.wait(for: result))
        #expect(done.urlError?.code == .cancelled)
        #expect(own.asked.withLock { $0 } == 1)
    }

    @Test func theHandlersErrorIsInTheDidCompleteNotification() throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem")
        defer { server.stop() }
        let manager = try ManagerTests.tlsManager(.default)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.authenticationChallengeHandler = { _, _, _, _ in .error(RefusedByHandler()) }
        let blockError = LockedBox<URLError?>(nil)
        manager.taskDidComplete = { _, _, error in blockError.withLock { $0 = error as? URLError } }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let box = LockedBox<ManagerResult?>(nil)
        let task = manager.dataTask(request: URLRequest(url: url), completionHandler: ManagerTests.record(into: box))
        let notified = LockedBox<(any Error)?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: URLSessionManager.networkingTaskDidCompleteNotification, object: task, queue: nil) { note in
            notified.withLock { $0 = note.userInfo?[URLSessionManager.networkingTaskDidCompleteErrorKey] as? any Error }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        task.resume()
        let result = try #require(ManagerTests.wait(for: box))
        #expect(result.error as? RefusedByHandler != nil)
        #expect(waitUntil(timeout: 10) { notified.withLock { $0 } is RefusedByHandler })
        // The block runs after the per-task delegate handed its completion on (seed 004's order), so it may
        // run after the completion handler and the notification: wait for it.
        #expect(waitUntil(timeout: 10) { blockError.withLock { $0 }?.code == .cancelled },
                "the block hears the session's own error")
    }
}
