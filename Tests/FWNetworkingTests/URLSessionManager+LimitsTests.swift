import Foundation
import FWNetworking
import Testing
import TestSupport

// The manager collects a task's body within the session's `httpResponseLimits.maxCollectedBodySize`, as a
// completion handler of the session does: a body announced larger ends the task at its head, one that grows
// larger as it passes the limit; either ends with `dataLengthExceedsMaximum` and the failing URL, and the
// manager keeps working. The task collects (the manager is a `URLSessionDataCollectingDelegate`), and only a
// task the manager made: one made on its session directly streams. (HostilePathTests runs the other hostile
// inputs through both managers.)
@Suite struct URLSessionManagerLimitsTests {
    /// Serves 4 MiB at `/announced` (with its Content-Length), at `/chunked` (chunked, no length), and
    /// "small" at `/small`.
    static func server() throws -> ScriptedServer {
        try ScriptedServer { connection in
            while let request = try connection.readRequest() {
                let block = [UInt8](repeating: 0x61, count: 64 << 10)
                switch request.target {
                case "/announced":
                    try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(4 << 20)\r\n\r\n")
                    for _ in 0..<64 { try connection.write(block) }
                case "/chunked":
                    try connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                    let chunk = "10000\r\n" + String(repeating: "a", count: 1 << 16) + "\r\n"
                    for _ in 0..<64 { try connection.write(chunk) }
                    try connection.write("0\r\n\r\n")
                default:
                    try connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsmall")
                }
            }
        }
    }

    /// A manager whose session collects at most 1 MiB.
    static func managerCollectingOneMebibyte() -> URLSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        var limits = configuration.httpResponseLimits
        limits.maxCollectedBodySize = 1 << 20
        configuration.httpResponseLimits = limits
        return ManagerTests.manager(configuration)
    }

    @Test(arguments: ["/announced", "/chunked"])
    func aBodyOverTheSessionsLimitEndsTheTask(_ path: String) throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = Self.managerCollectingOneMebibyte()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let url = URL(string: "http://127.0.0.1:\(server.port)\(path)")!
        let result = try #require(ManagerTests.load(manager, URLRequest(url: url)))
        #expect(result.urlError?.code == .dataLengthExceedsMaximum)
        #expect(result.urlError?.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        #expect(result.urlError?.userInfo[URLError.failingURLStringKey] as? String == url.absoluteString)
        #expect(result.object == nil)
        let smallURL = URL(string: "http://127.0.0.1:\(server.port)/small")!
        let small = try #require(ManagerTests.load(manager, URLRequest(url: smallURL)))
        #expect(small.error == nil)
        #expect(small.object as? Data == Data("small".utf8))
    }

    @Test func aBodyWithinTheLimitIsCollectedWhole() throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = ManagerTests.manager(.ephemeral)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let url = URL(string: "http://127.0.0.1:\(server.port)/chunked")!
        let result = try #require(ManagerTests.load(manager, URLRequest(url: url)))
        #expect(result.error == nil)
        #expect((result.object as? Data)?.count == 4 << 20)
    }

    @Test func aTaskMadeOnTheSessionDirectlyIsNotCollected() throws {
        let server = try Self.server()
        defer { server.stop() }
        let manager = Self.managerCollectingOneMebibyte()
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let task = manager.session.dataTask(with: URL(string: "http://127.0.0.1:\(server.port)/announced")!)
        task.resume()
        #expect(waitUntil(timeout: 20) { task.state == .completed })
        #expect(task.error == nil, "a body over the limit streams to the delegate's blocks")
        #expect(task.countOfBytesReceived == 4 << 20)
    }
}
