import Foundation
import FWNetworking
import Testing
import TestSupport

// The client of the DocC article Sources/FWNetworking/FWNetworking.docc/HTTPSessionManagerArticle.md (and of
// the README's "HTTP session manager" section), compiled with the article's two imports and run against a
// loopback server: the GET's page in the query below the base URL's path, the POST's JSON body, the
// decoded replies, and a 404 in the error. Keep the client below identical to the article's.

// MARK: - The article's client

final class UsersClient: Sendable {
    let manager: HTTPSessionManager

    init(baseURL: URL) {
        manager = HTTPSessionManager(baseURL: baseURL)
        // A Linux process rarely runs the main queue: complete on a queue of our own.
        manager.completionQueue = DispatchQueue(label: "users-client.completion")
        manager.requestSerializer = JSONRequestSerializer()
    }

    /// GETs `users?page=N`: the decoded users, or the error.
    func users(page: Int, completion: @escaping @Sendable ([[String: Any]]?, (any Error)?) -> Void) {
        manager.get(urlString: "users", parameters: ["page": page], success: { _, object in
            completion(object as? [[String: Any]] ?? [], nil)
        }, failure: { _, error in
            completion(nil, error)
        })
    }

    /// POSTs `{"name": name}` to `users`: the created user, or the error.
    func createUser(named name: String, completion: @escaping @Sendable ([String: Any]?, (any Error)?) -> Void) {
        manager.post(urlString: "users", parameters: ["name": name], success: { _, object in
            completion(object as? [String: Any], nil)
        }, failure: { _, error in
            completion(nil, error)
        })
    }
}

// MARK: - Running it

@Suite struct HTTPSessionManagerArticleTests {
    /// What a completion got.
    struct Got: @unchecked Sendable { // lets only: handed from the completion queue to the test
        let value: Any?
        let error: (any Error)?
    }

    static func server() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            switch (request.method, request.target) {
            case ("GET", "/v1/users?page=2"):
                return .ok(#"[{"name":"ada"},{"name":"grace"}]"#, contentType: "application/json")
            case ("POST", "/v1/users") where request.header("Content-Type") == "application/json":
                let name = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["name"]
                return .ok(#"{"id":7,"name":"\#(name as? String ?? "?")"}"#, contentType: "application/json",
                           status: 201)
            default:
                return .ok(#"{"error":"no route"}"#, contentType: "application/json", status: 404)
            }
        }
    }

    @Test func theArticlesClientListsAndCreatesUsers() throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = UsersClient(baseURL: try #require(URL(string: server.baseURL + "/v1")))
        defer { client.manager.invalidateSessionCancelingTasks(true, resetSession: false) }

        let listed = LockedBox<Got?>(nil)
        client.users(page: 2) { users, error in listed.withLock { $0 = Got(value: users, error: error) } }
        let list = try #require(waitFor(listed))
        #expect(list.error == nil)
        #expect((list.value as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["ada", "grace"])

        let created = LockedBox<Got?>(nil)
        client.createUser(named: "linus") { user, error in created.withLock { $0 = Got(value: user, error: error) } }
        let user = try #require(waitFor(created))
        #expect((user.value as? [String: Any])?["name"] as? String == "linus")
        #expect(server.requests.last.map { String(decoding: $0.body, as: UTF8.self) } == #"{"name":"linus"}"#)

        let missing = LockedBox<Got?>(nil)
        client.users(page: 3) { users, error in missing.withLock { $0 = Got(value: users, error: error) } }
        let failed = try #require(waitFor(missing))
        let error = try #require(failed.error as NSError?)
        let response = error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey]
        #expect(failed.value == nil && (response as? HTTPURLResponse)?.statusCode == 404)
    }

    private func waitFor(_ box: LockedBox<Got?>) -> Got? {
        _ = waitUntil(timeout: 20) { box.withLock { $0 != nil } }
        return box.withLock { $0 }
    }
}
