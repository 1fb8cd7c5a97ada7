import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// 401 answered end to end: nginx's auth_basic (Basic) and Apache's mod_auth_digest (Digest, MD5, qop=auth).
// The delegate's credential, the credential storage's default and the URL's user info all answer; a wrong
// password is asked for again with a growing previousFailureCount; without a credential the 401 is the
// task's response; cancelling cancels; a credential that got through is kept in the storage.
@Suite struct AuthenticationPipelineTests {
    /// Answers every task-level challenge with the next credential of `credentials` (then default handling),
    /// recording each challenge's method, realm and failure count.
    final class Answerer: NSObject, URLSessionTaskDelegate, @unchecked Sendable { // `state` is a LockedBox
        struct Asked: Equatable {
            var method: String
            var realm: String?
            var failures: Int
        }

        let state: LockedBox<(credentials: [URLCredential], asked: [Asked])>
        let disposition: URLSession.AuthChallengeDisposition

        init(_ credentials: [URLCredential], disposition: URLSession.AuthChallengeDisposition = .useCredential) {
            state = LockedBox((credentials, []))
            self.disposition = disposition
        }

        var asked: [Asked] { state.withLock { $0.asked } }

        func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition,
                                                                URLCredential?) -> Void) {
            let space = challenge.protectionSpace
            let next = state.withLock { state -> URLCredential? in
                state.asked.append(Asked(method: space.authenticationMethod, realm: space.realm,
                                         failures: challenge.previousFailureCount))
                return state.credentials.isEmpty ? nil : state.credentials.removeFirst()
            }
            guard disposition == .useCredential, let next else { return completionHandler(disposition, nil) }
            completionHandler(.useCredential, next)
        }
    }

    static let good = URLCredential(user: "alice", password: "wonderland", persistence: .forSession)
    static let bad = URLCredential(user: "alice", password: "looking-glass", persistence: .forSession)

    static func basicServer() throws -> (NginxServer, String) {
        let users = NSTemporaryDirectory() + "fw-users-\(UUID().uuidString)"
        try "alice:{PLAIN}wonderland\n".write(toFile: users, atomically: true, encoding: .utf8)
        let server = try NginxServer(files: ["private/page.txt": Array("secret page".utf8)], serverConfig: """
            location /private/ { auth_basic "Basic Realm"; auth_basic_user_file \(users); }
            """)
        return (server, users)
    }

    static func run(_ url: String, delegate: (any URLSessionTaskDelegate)?,
                    configuration: URLSessionConfiguration = .ephemeral) -> (Data?, HTTPURLResponse?, URLError?) {
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let result = load(session, URLRequest(url: URL(string: url)!))
        return (result.data, result.response, result.error)
    }

    @Test func basicIsAnsweredFromTheDelegateAfterAWrongPassword() throws {
        let (server, users) = try Self.basicServer()
        defer { try? FileManager.default.removeItem(atPath: users) }
        let answerer = Answerer([Self.bad, Self.good])
        let (data, response, error) = Self.run(server.baseURL + "/private/page.txt", delegate: answerer)
        #expect(error == nil)
        #expect(response?.statusCode == 200)
        #expect(data == Data("secret page".utf8))
        #expect(answerer.asked == [
            .init(method: NSURLAuthenticationMethodHTTPBasic, realm: "Basic Realm", failures: 0),
            .init(method: NSURLAuthenticationMethodHTTPBasic, realm: "Basic Realm", failures: 1),
        ])
        #expect(server.accessLog.last?.hasSuffix("user=alice") == true, "\(server.accessLog)")
    }

    @Test func withoutACredentialThe401IsTheResponse() throws {
        let (server, users) = try Self.basicServer()
        defer { try? FileManager.default.removeItem(atPath: users) }
        let (_, response, error) = Self.run(server.baseURL + "/private/page.txt", delegate: nil)
        #expect(error == nil)
        #expect(response?.statusCode == 401)
        let (_, refused, _) = Self.run(server.baseURL + "/private/page.txt", delegate: Answerer([]))
        #expect(refused?.statusCode == 401, "a delegate with nothing to offer gets the 401 too")
    }

    @Test func theURLsUserInfoAndTheStoragesDefaultAnswerByDefault() throws {
        let (server, users) = try Self.basicServer()
        defer { try? FileManager.default.removeItem(atPath: users) }
        let withUserInfo = "http://alice:wonderland@127.0.0.1:\(server.port)/private/page.txt"
        #expect(Self.run(withUserInfo, delegate: nil).1?.statusCode == 200)

        let configuration = URLSessionConfiguration.ephemeral
        let space = URLProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "Basic Realm",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        configuration.urlCredentialStorage?.setDefaultCredential(Self.good, for: space)
        #expect(Self.run(server.baseURL + "/private/page.txt", delegate: nil, configuration: configuration)
                    .1?.statusCode == 200)
    }

    @Test func aCredentialThatGotThroughIsKept() throws {
        let (server, users) = try Self.basicServer()
        defer { try? FileManager.default.removeItem(atPath: users) }
        let configuration = URLSessionConfiguration.ephemeral
        _ = Self.run(server.baseURL + "/private/page.txt", delegate: Answerer([Self.good]),
                     configuration: configuration)
        let space = URLProtectionSpace(host: "127.0.0.1", port: server.port, protocol: "http", realm: "Basic Realm",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        #expect(configuration.urlCredentialStorage?.defaultCredential(for: space)?.user == "alice")
    }

    @Test func cancellingTheChallengeCancelsTheTask() throws {
        let (server, users) = try Self.basicServer()
        defer { try? FileManager.default.removeItem(atPath: users) }
        let (_, _, error) = Self.run(server.baseURL + "/private/page.txt",
                                     delegate: Answerer([], disposition: .cancelAuthenticationChallenge))
        #expect(error?.code == .cancelled)
    }

    @Test func digestIsAnsweredAgainstApache() throws {
        let server = try ApacheServer(users: ["alice": "wonderland"], files: ["page.txt": Array("digest page".utf8)])
        let answerer = Answerer([Self.bad, Self.good])
        let (data, response, error) = Self.run(server.baseURL + "/private/page.txt", delegate: answerer)
        #expect(error == nil)
        #expect(response?.statusCode == 200)
        #expect(data == Data("digest page".utf8))
        #expect(answerer.asked.map(\.method) == Array(repeating: NSURLAuthenticationMethodHTTPDigest, count: 2))
        #expect(answerer.asked.map(\.failures) == [0, 1])
        #expect(answerer.asked.first?.realm == ApacheServer.realm)
    }
}
