import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// A stub JSON API served by a URL protocol, without a socket, through every way a program asks: a data
// delegate, completion handlers and the async methods. It redirects, fails, asks for credentials, and lets
// the URL cache store and serve its responses.
@Suite struct URLProtocolEndToEndTests {
    static let users = #"[{"id":1,"name":"Ada"}]"#

    struct User: Decodable, Equatable {
        var id: Int
        var name: String
    }

    /// The stub API: /users, /old-users (301 to /users), /broken (fails), /private (asks for credentials).
    static func api(_ stub: StubURLProtocol) {
        switch stub.request.url?.path {
        case "/users": stub.respond(200, users, ["Content-Type": "application/json"])
        case "/old-users": stub.redirect(to: "/users", status: 301)
        case "/broken": stub.fail(StubError(code: 500))
        case "/private": askForCredentials(stub)
        default: stub.respond(404)
        }
    }

    /// Raises a Basic challenge answered to a `StubChallengeSender`: a credential gets a welcome, a cancel
    /// fails the load, anything else gets a 401.
    static func askForCredentials(_ stub: StubURLProtocol, withdraw: Bool = false) {
        guard let host = StubHost.find(stub.request) else { return }
        let sender = StubChallengeSender { answer, credential in
            switch answer {
            case "use": stub.respond(200, "welcome \(credential?.user ?? "")")
            case "cancel": stub.fail(URLError(.userCancelledAuthentication))
            default: stub.respond(401)
            }
        }
        challengeSenders.withLock { $0[host.name] = sender }
        let space = URLProtectionSpace(host: host.name, port: 80, protocol: "http", realm: "stub",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil,
                                                   previousFailureCount: 0, failureResponse: nil, error: nil,
                                                   sender: sender)
        stub.client?.urlProtocol(stub, didReceive: challenge)
        if withdraw {
            stub.client?.urlProtocol(stub, didCancel: challenge)
            stub.respond(200, "no credentials needed after all")
        }
    }

    /// The sender of each host's last challenge.
    static let challengeSenders = LockedBox<[String: StubChallengeSender]>([:])

    static func decodeUsers(_ data: Data?) -> [User]? {
        data.flatMap { try? JSONDecoder().decode([User].self, from: $0) }
    }

    // MARK: Delegate

    @Test func aDelegateHearsTheRedirectAndTheJSONBody() throws {
        let host = StubHost(Self.api)
        defer { host.remove() }
        let recorder = ProtocolRecorder()
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: host.url("/old-users")).resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines == ["created", "redirect 301 /users", "response 200", "data \(Self.users.utf8.count)",
                                   "metrics", "complete"])
        #expect(Self.decodeUsers(recorder.log.withLock { $0.body }) == [User(id: 1, name: "Ada")])
        #expect(recorder.log.withLock { $0.metrics?.redirectCount } == 1)
        #expect(host.log.withLock { $0.requests.map { $0.url?.path } } == ["/old-users", "/users"])
    }

    // MARK: Completion handlers

    @Test(arguments: ["/users", "/old-users", "/broken", "/missing"])
    func completionHandlersGetTheStubsAnswer(_ path: String) throws {
        let host = StubHost(Self.api)
        defer { host.remove() }
        let session = stubSession()
        defer { session.invalidateAndCancel() }
        let result = LockedBox<(Data?, URLResponse?, (any Error)?)?>(nil)
        session.dataTask(with: host.url(path)) { data, response, error in
            result.withLock { $0 = (data, response, error) }
        }.resume()
        #expect(waitUntil(timeout: 5) { result.withLock { $0 != nil } })
        let (data, response, error) = try #require(result.withLock { $0 })
        switch path {
        case "/broken":
            #expect(error as? StubError == StubError(code: 500))
        case "/missing":
            #expect((response as? HTTPURLResponse)?.statusCode == 404)
        default:
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(response?.url?.path == "/users")
            #expect(Self.decodeUsers(data) == [User(id: 1, name: "Ada")])
        }
    }

    // MARK: Async

    @Test func theAsyncMethodsGetTheStubsAnswer() async throws {
        let host = StubHost(Self.api)
        defer { host.remove() }
        let session = stubSession()
        defer { session.invalidateAndCancel() }
        let (data, response) = try await session.data(from: host.url("/old-users"))
        #expect(Self.decodeUsers(data) == [User(id: 1, name: "Ada")])
        #expect(response.mimeType == "application/json")
        await #expect { try await session.data(from: host.url("/broken")) } throws: {
            $0 as? StubError == StubError(code: 500)
        }
        let (file, _) = try await session.download(from: host.url("/users"))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(Self.decodeUsers(try Data(contentsOf: file)) == [User(id: 1, name: "Ada")])
        let (bytes, _) = try await session.bytes(from: host.url("/users"))
        var streamed: [UInt8] = []
        for try await byte in bytes { streamed.append(byte) }
        #expect(streamed == Array(Self.users.utf8))
    }

    // MARK: Challenges

    @Test(arguments: [
        (URLSession.AuthChallengeDisposition.useCredential, "use ada", 200, "welcome ada"),
        (.performDefaultHandling, "default", 401, ""),
        (.rejectProtectionSpace, "reject", 401, ""),
    ])
    func aChallengeIsAnsweredToTheProtocolsSender(_ disposition: URLSession.AuthChallengeDisposition,
                                                  _ answer: String, _ status: Int, _ body: String) throws {
        let host = StubHost(Self.api)
        defer { host.remove() }
        let credential = URLCredential(user: "ada", password: "secret", persistence: .none)
        let recorder = ProtocolRecorder(ProtocolRecorder.Answers(challenge: (disposition, credential)))
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: host.url("/private")).resume()
        #expect(recorder.waitForCompletion())
        #expect(Array(recorder.lines.prefix(3)) == ["created", "challenge stub", "response \(status)"])
        #expect(String(decoding: recorder.log.withLock { $0.body }, as: UTF8.self) == body)
        let sender = try #require(Self.challengeSenders.withLock { $0[host.name] })
        #expect(sender.answers.withLock { $0 } == [answer])
        // Answered on the protocol's queue, not the delegate queue.
        #expect(sender.answeredOffTheDelegateQueue.withLock { $0 })
    }

    @Test func withoutADelegateTheChallengeGetsDefaultHandling() throws {
        let host = StubHost(Self.api)
        defer { host.remove() }
        let session = stubSession()
        defer { session.invalidateAndCancel() }
        #expect(load(session, URLRequest(url: host.url("/private"))).response?.statusCode == 401)
        #expect(Self.challengeSenders.withLock { $0[host.name] }?.answers.withLock { $0 } == ["default"])
    }

    @Test func aWithdrawnChallengeTakesNoAnswer() throws {
        // The delegate answers only once the protocol has withdrawn the challenge.
        let withdrawn = DispatchSemaphore(value: 0)
        let host = StubHost {
            Self.askForCredentials($0, withdraw: true)
            withdrawn.signal()
        }
        defer { host.remove() }
        let credential = URLCredential(user: "ada", password: "secret", persistence: .none)
        let recorder = ProtocolRecorder(ProtocolRecorder.Answers(challenge: (.useCredential, credential),
                                                                 challengeGate: withdrawn))
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: host.url("/private")).resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines.contains("challenge stub"))
        #expect(Self.challengeSenders.withLock { $0[host.name] }?.answers.withLock { $0 } == [])
    }

    // MARK: The URL cache

    @Test func theCacheStoresWhatThePolicyAllowsAndOffersItToTheNextInstance() throws {
        let host = StubHost { stub in
            if let cached = stub.cachedResponse {
                stub.client?.urlProtocol(stub, cachedResponseIsValid: cached)
            } else {
                stub.respond(200, "fresh", policy: .allowedInMemoryOnly)
            }
        }
        defer { host.remove() }
        let recorder = ProtocolRecorder()
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: host.url("/doc")).resume()
        #expect(recorder.waitForCompletion())
        #expect(recorder.lines == ["created", "response 200", "data 5", "willCache allowedInMemoryOnly", "metrics",
                                   "complete"])
        let cache = try #require(session.configuration.urlCache)
        let stored = try #require(cache.cachedResponse(for: URLRequest(url: host.url("/doc"))))
        #expect(stored.data == Data("fresh".utf8))

        let second = ProtocolRecorder()
        let again = stubSession(delegate: second) { $0.urlCache = session.configuration.urlCache }
        defer { again.invalidateAndCancel() }
        again.dataTask(with: host.url("/doc")).resume()
        #expect(second.waitForCompletion())
        #expect(second.lines == ["created", "response 200", "data 5", "metrics", "complete"])
        #expect(second.log.withLock { $0.metrics?.transactionMetrics.first?.resourceFetchType } == .localCache)

        let ignoring = URLRequest(url: host.url("/doc"), cachePolicy: .reloadIgnoringLocalCacheData)
        #expect(load(again, ignoring).data == Data("fresh".utf8))
        #expect(host.log.withLock { $0.cachedResponses.map { $0 != nil } } == [false, true, false])
    }

    @Test func aResponseThePolicyForbidsIsNotStored() throws {
        let host = StubHost { $0.respond(200, "private", policy: .notAllowed) }
        defer { host.remove() }
        let recorder = ProtocolRecorder()
        let session = stubSession(delegate: recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: host.url("/doc")).resume()
        #expect(recorder.waitForCompletion())
        #expect(!recorder.lines.contains { $0.hasPrefix("willCache") })
        #expect(session.configuration.urlCache?.cachedResponse(for: URLRequest(url: host.url("/doc"))) == nil)
    }
}

/// The sender of a stub's challenge: records each answer and goes on as `then` says.
final class StubChallengeSender: NSObject, URLAuthenticationChallengeSender,
    @unchecked Sendable { // state: LockedBoxes
    let answers = LockedBox<[String]>([])
    let answeredOffTheDelegateQueue = LockedBox(true)
    private let then: @Sendable (String, URLCredential?) -> Void

    init(then: @escaping @Sendable (String, URLCredential?) -> Void) {
        self.then = then
    }

    private func answer(_ text: String, _ kind: String, _ credential: URLCredential? = nil) {
        answers.withLock { $0.append(text) }
        if OperationQueue.current != nil { answeredOffTheDelegateQueue.withLock { $0 = false } }
        then(kind, credential)
    }

    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {
        answer("use \(credential.user ?? "")", "use", credential)
    }

    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {
        answer("without", "without")
    }

    func cancel(_ challenge: URLAuthenticationChallenge) {
        answer("cancel", "cancel")
    }

    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {
        answer("default", "default")
    }

    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {
        answer("reject", "reject")
    }
}
