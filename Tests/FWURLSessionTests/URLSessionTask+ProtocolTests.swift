import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// The URL protocol client contract, through a session and its data delegate: what each sequence of client
// calls becomes (delegate messages, body, error), that every instance started is stopped exactly once,
// and how a load ends early (cancel, timeout).
@Suite struct URLSessionTaskProtocolTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var answers = ProtocolRecorder.Answers()
        var script: StubScript
        var path = "/"
        var lines: [String]
        var body = ""
        var loads = 1
        var error: @Sendable ((any Error)?) -> Bool = { $0 == nil }

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a response, its body and the end", script: { stub in
            stub.response(200)
            stub.data("ab")
            stub.data("cde")
            stub.finish()
        }, lines: ["created", "response 200", "data 2", "data 3", "metrics", "complete"], body: "abcde"),
        Case(name: "an end without a body", script: { $0.respond(204) },
             lines: ["created", "response 204", "metrics", "complete"]),
        Case(name: "a failure before any response completes with the protocol's own error",
             script: { $0.fail(StubError(code: 7)) }, lines: ["created", "metrics", "complete"],
             error: { ($0 as? StubError) == StubError(code: 7) }),
        Case(name: "a failure after some body", script: { stub in
            stub.response(200)
            stub.data("x")
            stub.fail(URLError(.networkConnectionLost))
        }, lines: ["created", "response 200", "data 1", "metrics", "complete"], body: "x",
             error: { ($0 as? URLError)?.code == .networkConnectionLost }),
        Case(name: "what comes after the end is dropped", script: { stub in
            stub.respond(200, "ok")
            stub.data("late")
            stub.fail(StubError(code: 1))
        }, lines: ["created", "response 200", "data 2", "metrics", "complete"], body: "ok"),
        Case(name: "a response that is not HTTP", script: { stub in
            stub.client?.urlProtocol(stub, didReceive: URLResponse(url: stub.request.url!, mimeType: "text/plain",
                                                                   expectedContentLength: 2, textEncodingName: nil),
                                     cacheStoragePolicy: .notAllowed)
            stub.data("hi")
            stub.finish()
        }, lines: ["created", "response -", "data 2", "metrics", "complete"], body: "hi"),
        Case(name: "a followed redirect loads the new request with a new instance", script: { stub in
            if stub.request.url?.path == "/old" { stub.redirect(to: "/new") } else { stub.respond(200, "new") }
        }, path: "/old", lines: ["created", "redirect 302 /new", "response 200", "data 3", "metrics", "complete"],
             body: "new", loads: 2),
        Case(name: "a refused redirect delivers the redirect response",
             answers: ProtocolRecorder.Answers(followsRedirects: false),
             script: { $0.redirect(to: "/new", status: 307) }, path: "/old",
             lines: ["created", "redirect 307 /new", "response 307", "metrics", "complete"]),
        Case(name: "a cancel disposition cancels the load",
             answers: ProtocolRecorder.Answers(disposition: .cancel),
             script: { $0.respond(200, "never delivered") }, lines: ["created", "response 200", "metrics", "complete"],
             error: { ($0 as? URLError)?.code == .cancelled }),
    ]

    @Test(arguments: cases)
    func clientCallsBecomeDelegateMessages(_ testCase: Case) throws {
        let host = StubHost(testCase.script)
        defer { host.remove() }
        let recorder = ProtocolRecorder(testCase.answers)
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: host.url(testCase.path)).resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines == testCase.lines)
        let log = recorder.log.withLock { $0 }
        #expect(String(decoding: log.body, as: UTF8.self) == testCase.body)
        #expect(testCase.error(log.error))
        #expect(log.metrics?.transactionMetrics.count == testCase.loads)
        // Every instance started was stopped, once.
        #expect(host.waitUntilStopped(testCase.loads))
        #expect(host.log.withLock { ($0.started, $0.stopped) } == (testCase.loads, testCase.loads))
    }

    @Test func cancelStopsTheLoadExactlyOnce() throws {
        let host = StubHost { $0.response(200) }
        defer { host.remove() }
        let recorder = ProtocolRecorder()
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: host.url())
        task.resume()
        #expect(waitUntil(timeout: 5) { recorder.lines.contains("response 200") })
        task.cancel()
        task.cancel()
        #expect(recorder.waitForCompletion())
        #expect((recorder.log.withLock { $0.error } as? URLError)?.code == .cancelled)
        #expect(host.waitUntilStopped())
        #expect(host.log.withLock { ($0.started, $0.stopped) } == (1, 1))
    }

    @Test func theResourceTimeoutStopsTheLoad() throws {
        let host = StubHost { _ in }
        defer { host.remove() }
        let session = stubSession { $0.timeoutIntervalForResource = 0.2 }
        defer { session.invalidateAndCancel() }
        #expect(load(session, URLRequest(url: host.url())).error?.code == .timedOut)
        #expect(host.waitUntilStopped())
        #expect(host.log.withLock { $0.stopped } == 1)
    }

    @Test func theBaseClassFailsTheLoadWithUnsupportedURL() throws {
        let session = URLSession(configuration: {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [AcceptingBaseProtocol.self]
            return configuration
        }())
        defer { session.invalidateAndCancel() }
        let result = load(session, URLRequest(url: URL(string: "custom://anything/")!))
        #expect(result.error?.code == .unsupportedURL)
    }

    @Test func theCanonicalRequestIsTheCurrentRequestAndCarriesTheUploadBody() throws {
        let host = StubHost { $0.respond(201) }
        defer { host.remove() }
        let session = stubSession { $0.protocolClasses = [CanonicalisingProtocol.self] }
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: host.url("/upload"))
        request.httpMethod = "POST"
        let done = DispatchSemaphore(value: 0)
        let task = session.uploadTask(with: request, from: Data("payload".utf8)) { _, _, _ in done.signal() }
        task.resume()
        #expect(done.wait(timeout: .now() + 5) == .success)
        let loaded = try #require(host.log.withLock { $0.requests.first })
        #expect(loaded.value(forHTTPHeaderField: "X-Canonical") == "yes")
        #expect(loaded.httpBody == Data("payload".utf8))
        #expect(task.currentRequest?.value(forHTTPHeaderField: "X-Canonical") == "yes")
        #expect(task.currentRequest?.httpBody == nil)
    }
}

/// Takes every request and overrides nothing else.
final class AcceptingBaseProtocol: URLProtocol, @unchecked Sendable { // no state
    override class func canInit(with request: URLRequest) -> Bool { true }
}

/// A stub whose canonical form of a request adds a field.
final class CanonicalisingProtocol: URLProtocol, @unchecked Sendable { // no state
    override class func canInit(with request: URLRequest) -> Bool { StubURLProtocol.canInit(with: request) }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        var canonical = request
        canonical.setValue("yes", forHTTPHeaderField: "X-Canonical")
        return canonical
    }

    override func startLoading() {
        guard let host = StubHost.find(request) else { return }
        host.log.withLock { $0.requests.append(request) }
        let response = HTTPURLResponse(url: request.url!, statusCode: 201, httpVersion: nil, headerFields: nil)!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
