import Foundation
import FWNetworking
import Testing
import TestSupport

// HTTPSessionManager against a real loopback server: every verb with its method, its path resolved
// against the base URL, its parameters in the query or the body as `httpMethodsEncodingParametersInURI`
// says, the per-call headers merged over the serializer's, the JSON reply decoded for success; and the
// base URL's trailing slash and the security policy's https rule.

@Suite struct HTTPSessionManagerTests {
    // MARK: Every verb

    /// How a verb sends `a=1&b[]=x&b[]=y`: in the query or as a form body.
    static let verbs: [(method: String, inQuery: Bool)] = [
        ("GET", true), ("HEAD", true), ("POST", false), ("PUT", false), ("PATCH", false), ("DELETE", true),
    ]

    /// Calls the verb method for `method` with `recorder`'s handlers.
    static func call(_ method: String, on manager: HTTPSessionManager, _ urlString: String, parameters: Any?,
                     headers: [String: String]?, recorder: VerbRecorder) -> URLSessionDataTask? {
        let (success, failure) = (recorder.success, recorder.failure)
        switch method {
        case "GET": return manager.get(urlString: urlString, parameters: parameters, headers: headers,
                                       progress: nil, success: success, failure: failure)
        case "HEAD": return manager.head(urlString: urlString, parameters: parameters, headers: headers,
                                         success: recorder.taskOnlySuccess, failure: failure)
        case "POST": return manager.post(urlString: urlString, parameters: parameters, headers: headers,
                                         progress: nil, success: success, failure: failure)
        case "PUT": return manager.put(urlString: urlString, parameters: parameters, headers: headers,
                                       success: success, failure: failure)
        case "PATCH": return manager.patch(urlString: urlString, parameters: parameters, headers: headers,
                                           success: success, failure: failure)
        default: return manager.delete(urlString: urlString, parameters: parameters, headers: headers,
                                       success: success, failure: failure)
        }
    }

    @Test(arguments: verbs)
    func everyVerbSendsItsMethodPathParametersAndHeaders(_ verb: (method: String, inQuery: Bool)) throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL + "/api/v1")
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.requestSerializer.setValue("serializer", forHTTPHeaderField: "X-Default")
        manager.requestSerializer.setValue("serializer", forHTTPHeaderField: "X-Replaced")
        let recorder = VerbRecorder()

        let task = Self.call(verb.method, on: manager, "echo", parameters: ["a": 1, "b": ["x", "y"]],
                             headers: ["X-Call": "call", "X-Replaced": "call"], recorder: recorder)
        #expect(task != nil)
        #expect(task?.state != .suspended, "the verb methods resume their task")
        let outcome = try #require(recorder.wait())

        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(outcome.task === task && outcome.status == 200 && outcome.onCompletionQueue)
        let received = try #require(server.requests.last)
        #expect(received.method == verb.method)
        let query = "a=1&b%5B%5D=x&b%5B%5D=y"
        #expect(received.target == (verb.inQuery ? "/api/v1/echo?" + query : "/api/v1/echo"))
        #expect(String(decoding: received.body, as: UTF8.self) == (verb.inQuery ? "" : query))
        #expect(received.header("Content-Type") == (verb.inQuery ? nil : "application/x-www-form-urlencoded"))
        #expect(received.header("X-Default") == "serializer" && received.header("X-Call") == "call")
        #expect(received.headers(named: "X-Replaced") == ["call"], "a per-call header replaces the default")
        #expect(received.header("User-Agent") == manager.requestSerializer.value(forHTTPHeaderField: "User-Agent"))
        if verb.method == "HEAD" {
            #expect(outcome.object == nil)
        } else {
            let json = try #require(outcome.json, "the default response serializer decodes JSON")
            #expect(json["method"] as? String == verb.method && json["target"] as? String == received.target)
        }
    }

    // MARK: Resolving against the base URL

    /// (base URL path, or nil for no base URL; URL string, with `ORIGIN` for the server's origin; the
    /// target the server must see).
    static let resolutions: [(base: String?, urlString: String, target: String)] = [
        ("/api/v1", "echo", "/api/v1/echo"),
        ("/api/v1/", "echo", "/api/v1/echo"),
        ("/api/v1", "echo/deeper?x=1", "/api/v1/echo/deeper?x=1"),
        ("/api/v1", "/echo", "/echo"),
        ("/api/v1", "../echo", "/api/echo"),
        ("", "echo", "/echo"),
        ("/api/v1", "ORIGIN/absolute/echo", "/absolute/echo"),
        (nil, "ORIGIN/no-base/echo", "/no-base/echo"),
    ]

    @Test(arguments: resolutions)
    func pathsResolveAgainstTheBaseURL(_ row: (base: String?, urlString: String, target: String)) throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(row.base.map { server.baseURL + $0 })
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let recorder = VerbRecorder()
        let urlString = row.urlString.replacingOccurrences(of: "ORIGIN", with: server.baseURL)
        manager.get(urlString: urlString, success: recorder.success, failure: recorder.failure)
        let outcome = try #require(recorder.wait())
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(server.requests.last?.target == row.target)
    }

    @Test func aBaseURLWithAPathGetsATrailingSlash() {
        let rows: [(given: String, kept: String)] = [
            ("https://example.com/api/v1", "https://example.com/api/v1/"),
            ("https://example.com/api/v1/", "https://example.com/api/v1/"),
            ("https://example.com/api/v1?key=a/b", "https://example.com/api/v1/?key=a/b"),
            ("https://example.com", "https://example.com"),
            ("https://example.com/", "https://example.com/"),
        ]
        for row in rows {
            let manager = HTTPSessionManager(baseURL: URL(string: row.given))
            #expect(manager.baseURL?.absoluteString == row.kept, "\(row.given)")
        }
        #expect(HTTPSessionManager(sessionConfiguration: nil).baseURL == nil)
        #expect(HTTPSessionManager().baseURL == nil)
    }

    // MARK: Query or body

    @Test func theSerializersMethodListDecidesQueryOrBody() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.requestSerializer.httpMethodsEncodingParametersInURI = ["GET", "HEAD", "POST"]

        let post = VerbRecorder()
        manager.post(urlString: "echo", parameters: ["q": "in query"], success: post.success, failure: post.failure)
        _ = try #require(post.wait())
        let sentPost = try #require(server.requests.last)
        #expect(sentPost.target == "/echo?q=in%20query" && sentPost.body.isEmpty)

        let delete = VerbRecorder()
        manager.delete(urlString: "echo", parameters: ["q": "in body"], success: delete.success,
                       failure: delete.failure)
        _ = try #require(delete.wait())
        let sentDelete = try #require(server.requests.last)
        #expect(sentDelete.target == "/echo" && String(decoding: sentDelete.body, as: UTF8.self) == "q=in%20body")
    }

    @Test func aJSONRequestSerializerSendsAJSONBody() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.requestSerializer = JSONRequestSerializer(writingOptions: [.sortedKeys])
        let recorder = VerbRecorder()
        manager.put(urlString: "echo", parameters: ["name": "fw", "list": [1, 2]], success: recorder.success,
                    failure: recorder.failure)
        let outcome = try #require(recorder.wait())
        #expect(outcome.json?["body"] as? String == #"{"list":[1,2],"name":"fw"}"#)
        #expect(outcome.json?["contentType"] as? String == "application/json")
    }

    // MARK: Progress

    @Test func getReportsDownloadProgressAndPostUploadProgress() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let seen = LockedBox<[String]>([])

        let get = VerbRecorder()
        manager.get(urlString: "echo", progress: { progress in
            seen.withLock { $0.append("download \(progress.completedUnitCount)") }
        }, success: get.success, failure: get.failure)
        _ = try #require(get.wait())
        let post = VerbRecorder()
        manager.post(urlString: "echo", parameters: ["k": "v"], progress: { progress in
            seen.withLock { $0.append("upload \(progress.completedUnitCount)") }
        }, success: post.success, failure: post.failure)
        _ = try #require(post.wait())

        let entries = seen.withLock { $0 }
        #expect(entries.contains { $0.hasPrefix("download ") && $0 != "download 0" })
        #expect(entries.last == "upload 3", "\(entries)")
    }

    // MARK: The https rule of the security policy

    @Test func aPinningPolicyIsRefusedWithoutAnHTTPSBaseURL() throws {
        let pinning = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [])
        for base in ["http://127.0.0.1/api", nil] {
            let manager = HTTPSessionManager(baseURL: base.flatMap { URL(string: $0) })
            let before = manager.securityPolicy
            manager.securityPolicy = pinning
            #expect(manager.securityPolicy === before, "the setter keeps the previous policy")
            #expect(throws: SecurityPolicyRefusal.self) { try manager.setSecurityPolicy(pinning) }
            #expect(manager.securityPolicy === before)
            let none = SecurityPolicy.default
            manager.securityPolicy = none
            #expect(manager.securityPolicy === none, "a policy that pins nothing is accepted")
        }
        do {
            try HTTPSessionManager(baseURL: URL(string: "http://h/"))
                .setSecurityPolicy(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: []))
            Issue.record("a certificate-pinning policy was accepted for http")
        } catch let refusal as SecurityPolicyRefusal {
            #expect(refusal.pinningMode == .certificate)
            #expect("\(refusal)".contains("certificate pinning") && "\(refusal)".contains("https"))
            #expect("\(refusal)".contains("'http://h/'"))
            #expect(refusal.localizedDescription == refusal.description)
        }
    }

    @Test func aPinningPolicyIsAcceptedWithAnHTTPSBaseURL() throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com/api"))
        let pinning = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [])
        manager.securityPolicy = pinning
        #expect(manager.securityPolicy === pinning)
        let other = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [])
        try manager.setSecurityPolicy(other)
        #expect(manager.securityPolicy === other)
    }

    @Test func theDescriptionNamesTheBaseURL() {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com/v2"))
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        #expect(manager.description.hasPrefix("<HTTPSessionManager: "))
        #expect(manager.description.contains("baseURL: https://example.com/v2/"))
    }
}
