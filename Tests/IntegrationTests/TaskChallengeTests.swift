import Foundation
import FWNetworking
import Testing
import TestSupport

// Connection-level challenges routed as on Apple platforms, against `openssl s_server`: a session
// delegate that implements `urlSession(_:didReceive:completionHandler:)` gets them; otherwise the
// task-level `urlSession(_:task:didReceive:completionHandler:)` of the task's delegate (its own first,
// then the session delegate) does, with the task the connection is made for.

// MARK: - Pinning delegates

/// One server-trust decision of a pinning delegate.
struct PinDecision: Equatable {
    var port: Int
    var accepted: Bool
}

/// Pins the leaf's SPKI (curl's sha256// form) after Apple's default evaluation; remembers every
/// decision and the tasks it was asked for.
final class SPKIPins: @unchecked Sendable { // `decisions` and `tasks`: under `lock`
    let pins: Set<String>
    private let lock = NSLock()
    private var decisions: [PinDecision] = []
    private var tasks: [URLSessionTask] = []

    init(_ pins: Set<String>) { self.pins = pins }

    var made: [PinDecision] { lock.withLock { decisions } }
    var askedFor: [URLSessionTask] { lock.withLock { tasks } }

    /// The answer to `challenge`, asked for `task` (nil: at session level).
    func answer(_ challenge: URLAuthenticationChallenge, task: URLSessionTask?)
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
            return (.performDefaultHandling, nil)
        }
        let leaf = (SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first
        let accepted = SecTrustEvaluateWithError(trust, nil) && pins.contains(leaf?.certificate.spkiPin ?? "")
        lock.withLock {
            decisions.append(PinDecision(port: space.port, accepted: accepted))
            if let task { tasks.append(task) }
        }
        return accepted ? (.useCredential, URLCredential(trust: trust)) : (.cancelAuthenticationChallenge, nil)
    }
}

/// Pins at session level (implements only the session-level method).
final class SessionLevelPinner: NSObject, URLSessionDelegate, @unchecked Sendable { // lets only
    let pins: SPKIPins

    init(_ pins: SPKIPins) { self.pins = pins }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let (disposition, credential) = pins.answer(challenge, task: nil)
        completionHandler(disposition, credential)
    }
}

/// Pins at task level (implements only the task-level method).
final class TaskLevelPinner: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // lets only
    let pins: SPKIPins

    init(_ pins: SPKIPins) { self.pins = pins }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let (disposition, credential) = pins.answer(challenge, task: task)
        completionHandler(disposition, credential)
    }
}

/// The fixtures' SPKI pins (Fixtures/tls/README.md).
enum FixturePins {
    static func pin(_ file: String) throws -> String {
        try #require(try TLSFixtures.readmePins()[file])
    }
}

// MARK: - Tests

@Suite struct TaskChallengeTests {
    /// Loads https://127.0.0.1:PORT/ with a session delegate and a task delegate (either may be nil),
    /// trusting the fixtures' root.
    static func load(port: Int, sessionDelegate: (any URLSessionDelegate)?, taskDelegate: (any URLSessionTaskDelegate)?)
        async throws -> Result<String, URLError> {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.tlsTrustRoots = .certificates(
            try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem")))
        configuration.timeoutIntervalForResource = 20
        let session = URLSession(configuration: configuration, delegate: sessionDelegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        do {
            let url = URL(string: "https://127.0.0.1:\(port)/")!
            let (body, _) = try await session.data(for: URLRequest(url: url), delegate: taskDelegate)
            return .success(String(decoding: body, as: UTF8.self))
        } catch let error as URLError {
            return .failure(error)
        }
    }

    @Test(arguments: [true, false])
    func theTaskDelegateReceivesTheServerTrustChallengeAndPins(_ matches: Bool) async throws {
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        defer { server.stop() }
        let pins = SPKIPins([try FixturePins.pin(matches ? "valid-rsa.pem" : "valid-ecdsa.pem")])
        let result = try await Self.load(port: server.port, sessionDelegate: nil, taskDelegate: TaskLevelPinner(pins))
        #expect(pins.made == [PinDecision(port: server.port, accepted: matches)])
        let task = try #require(pins.askedFor.first)
        #expect(task.originalRequest?.url?.port == server.port, "the challenge names the task it is for")
        if matches {
            #expect(try result.get().contains("s_server"))
        } else {
            #expect(result.failure?.code == .cancelled)
        }
    }

    @Test func aSessionDelegateThatImplementsTheSessionLevelMethodWins() async throws {
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        defer { server.stop() }
        let sessionPins = SPKIPins([try FixturePins.pin("valid-rsa.pem")])
        let taskPins = SPKIPins([])
        let result = try await Self.load(port: server.port, sessionDelegate: SessionLevelPinner(sessionPins),
                                         taskDelegate: TaskLevelPinner(taskPins))
        #expect(try result.get().contains("s_server"))
        #expect(sessionPins.made == [PinDecision(port: server.port, accepted: true)])
        #expect(taskPins.made.isEmpty, "the task delegate is not asked")
    }

    @Test func aSessionTaskDelegateWithoutTheSessionLevelMethodGetsItAtTaskLevel() async throws {
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        defer { server.stop() }
        let pins = SPKIPins([try FixturePins.pin("valid-ecdsa.pem")])
        let result = try await Self.load(port: server.port, sessionDelegate: TaskLevelPinner(pins), taskDelegate: nil)
        #expect(result.failure?.code == .cancelled, "the session delegate's task-level method rejected the server")
        #expect(pins.made == [PinDecision(port: server.port, accepted: false)])
        #expect(pins.askedFor.count == 1)
    }

    @Test func theTaskDelegateWinsOverTheSessionDelegatesTaskLevelMethod() async throws {
        let server = try OpenSSLServer.start(certificate: "valid-rsa.pem")
        defer { server.stop() }
        let sessionPins = SPKIPins([])
        let taskPins = SPKIPins([try FixturePins.pin("valid-rsa.pem")])
        let result = try await Self.load(port: server.port, sessionDelegate: TaskLevelPinner(sessionPins),
                                         taskDelegate: TaskLevelPinner(taskPins))
        #expect(try result.get().contains("s_server"))
        #expect(taskPins.made.count == 1)
        #expect(sessionPins.made.isEmpty)
    }

    @Test func theTaskDelegateAnswersTheClientCertificateChallenge() async throws {
        let server = try OpenSSLServer.start(extra: MutualTLSTests.requireClientCertificate)
        defer { server.stop() }
        let delegate = TaskLevelIdentity(try MutualTLSTests.pemIdentity())
        let page = try await Self.load(port: server.port, sessionDelegate: nil, taskDelegate: delegate).get()
        #expect(page.contains("FWNetworking Test Client"))
        #expect(delegate.methods == [NSURLAuthenticationMethodServerTrust, NSURLAuthenticationMethodClientCertificate])
    }
}

/// Answers client-certificate challenges at task level with an identity; default handling otherwise.
final class TaskLevelIdentity: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // `asked`: under `lock`
    private let identity: SecIdentity
    private let lock = NSLock()
    private var asked: [String] = []

    init(_ identity: SecIdentity) { self.identity = identity }

    var methods: [String] { lock.withLock { asked } }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let method = challenge.protectionSpace.authenticationMethod
        lock.withLock { asked.append(method) }
        guard method == NSURLAuthenticationMethodClientCertificate else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(identity: identity, certificates: nil, persistence: .none))
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
