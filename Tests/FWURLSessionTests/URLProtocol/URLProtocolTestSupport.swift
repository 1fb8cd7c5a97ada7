import Foundation
@testable import FWURLSession
import TestSupport

// MARK: - StubURLProtocol: answers requests without a socket
//
// Each test makes a `StubHost` with a script; the stub protocol takes requests for that host (a name of its
// own, so tests run in parallel) and runs the script on the protocol's queue when it starts. The host logs
// what happened to its loads: starts, stops, the requests and cached responses the instances got.

/// What a stub does for one load (on the protocol's queue).
typealias StubScript = @Sendable (StubURLProtocol) -> Void

/// One test's host: its script and its log.
final class StubHost: Sendable {
    struct Log {
        var started = 0
        var stopped = 0
        var requests: [URLRequest] = []
        var cachedResponses: [CachedURLResponse?] = []
    }

    private static let hosts = LockedBox<[String: StubHost]>([:])

    let name = "stub-\(UUID().uuidString.lowercased()).test"
    let script: StubScript
    let log = LockedBox(Log())

    init(_ script: @escaping StubScript) {
        self.script = script
        Self.hosts.withLock { $0[name] = self }
    }

    /// Forgets the host (its requests go to the network again).
    func remove() {
        Self.hosts.withLock { $0[name] = nil }
    }

    func url(_ path: String = "/") -> URL {
        URL(string: "http://\(name)\(path)")!
    }

    static func find(_ request: URLRequest) -> StubHost? {
        guard let host = request.url?.host else { return nil }
        return hosts.withLock { $0[host] }
    }

    /// Waits (bounded) until every started load was stopped.
    func waitUntilStopped(_ count: Int = 1) -> Bool {
        waitUntil(timeout: 5) { log.withLock { $0.stopped >= count } }
    }
}

/// A URL protocol that answers its host's requests with the host's script.
final class StubURLProtocol: URLProtocol, @unchecked Sendable { // no state of its own
    override class func canInit(with request: URLRequest) -> Bool {
        StubHost.find(request) != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let host = StubHost.find(request) else { return }
        host.log.withLock { log in
            log.started += 1
            log.requests.append(request)
            log.cachedResponses.append(cachedResponse)
        }
        host.script(self)
    }

    override func stopLoading() {
        StubHost.find(request)?.log.withLock { $0.stopped += 1 }
    }

    // MARK: Script steps

    func response(_ status: Int = 200, _ headers: [String: String] = [:],
                  policy: URLCache.StoragePolicy = .notAllowed) {
        let response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1",
                                       headerFields: headers)!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: policy)
    }

    func data(_ text: String) {
        client?.urlProtocol(self, didLoad: Data(text.utf8))
    }

    func finish() {
        client?.urlProtocolDidFinishLoading(self)
    }

    /// A whole response: head, body, end.
    func respond(_ status: Int = 200, _ body: String = "", _ headers: [String: String] = [:],
                 policy: URLCache.StoragePolicy = .notAllowed) {
        response(status, headers, policy: policy)
        if !body.isEmpty { data(body) }
        finish()
    }

    func fail(_ error: any Error) {
        client?.urlProtocol(self, didFailWithError: error)
    }

    func redirect(to path: String, status: Int = 302) {
        let target = URL(string: path, relativeTo: request.url)!.absoluteURL
        let response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1",
                                       headerFields: ["Location": target.absoluteString])!
        client?.urlProtocol(self, wasRedirectedTo: URLRequest(url: target), redirectResponse: response)
    }
}

/// An error a stub fails with: the task must complete with it as it is.
struct StubError: Error, Equatable {
    var code: Int
}

// MARK: - ProtocolRecorder: a delegate that records and answers

/// A data delegate that records every message as a line, and answers redirects, challenges, delayed
/// begins, responses and cache proposals as told.
final class ProtocolRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable { // state: LockedBoxes
    struct Answers {
        var followsRedirects = true
        var challenge: (URLSession.AuthChallengeDisposition, URLCredential?) = (.performDefaultHandling, nil)
        /// Signalled when the challenge may be answered (up to 5 s): lets a test act first.
        var challengeGate: DispatchSemaphore?
        var delayed: (URLSession.DelayedRequestDisposition, URLRequest?) = (.continueLoading, nil)
        var disposition = URLSession.ResponseDisposition.allow
        var storesProposals = true
    }

    struct Log {
        var lines: [String] = []
        var body = Data()
        var error: (any Error)?
        var completed = false
        var metrics: URLSessionTaskMetrics?
    }

    let answers: LockedBox<Answers>
    let log = LockedBox(Log())

    init(_ answers: Answers = Answers()) {
        self.answers = LockedBox(answers)
    }

    var lines: [String] { log.withLock { $0.lines } }

    func record(_ line: String) {
        log.withLock { $0.lines.append(line) }
    }

    func waitForCompletion(timeout: Double = 5) -> Bool {
        waitUntil(timeout: timeout) { log.withLock { $0.completed } }
    }

    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        record("created")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willBeginDelayedRequest request: URLRequest,
                    completionHandler: @escaping @Sendable
                        (URLSession.DelayedRequestDisposition, URLRequest?) -> Void) {
        record("delayed \(request.url?.path ?? "")")
        let (disposition, replacement) = answers.withLock { $0.delayed }
        completionHandler(disposition, replacement)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        record("redirect \(response.statusCode) \(request.url?.path ?? "")")
        completionHandler(answers.withLock { $0.followsRedirects } ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable
                        (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        record("challenge \(challenge.protectionSpace.realm ?? "")")
        let (disposition, credential) = answers.withLock { $0.challenge }
        _ = answers.withLock { $0.challengeGate }?.wait(timeout: .now() + 5)
        completionHandler(disposition, credential)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceiveInformationalResponse response: HTTPURLResponse) {
        record("informational \(response.statusCode)")
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        record("response \((response as? HTTPURLResponse).map { "\($0.statusCode)" } ?? "-")")
        completionHandler(answers.withLock { $0.disposition })
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        record("data \(data.count)")
        log.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                    willCacheResponse proposedResponse: CachedURLResponse,
                    completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        record("willCache \(proposedResponse.storagePolicy)")
        completionHandler(answers.withLock { $0.storesProposals } ? proposedResponse : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        record("metrics")
        log.withLock { $0.metrics = metrics }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        record("complete")
        log.withLock { log in
            log.error = error
            log.completed = true
        }
    }
}

/// A session whose configuration lists the stub protocol, and whose cache is in memory only.
func stubSession(delegate: (any URLSessionDelegate)? = nil,
                 configure: (URLSessionConfiguration) -> Void = { _ in }) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [StubURLProtocol.self]
    configure(configuration)
    return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
}
