import Foundation
import FWNetworking

// MARK: - Demo

/// `fwcurl demo`: a guided tour against an in-process loopback server (`DemoServer`). Each step prints
/// a few lines and checks what it shows; the exit status is 0 only when every step behaved.
struct Demo {
    let server: DemoServer
    var failures = 0

    init() throws {
        let flaky = FlakyRoute(failures: 2)
        server = try DemoServer { request in
            switch (request.method, request.target) {
            case ("GET", "/hello"):
                return .ok("Hello from FWNetworking\n")
            case ("GET", "/json"):
                return .ok(bytes: Array(#"{"project":"FWNetworking","layers":10,"pure_swift":true}"#.utf8),
                           contentType: "application/json")
            case ("GET", "/flaky"):
                return flaky.reply()
            case ("GET", "/chunked"):
                return .chunked(["streamed ", "in ", "three chunks\n"], trailers: [("X-Checksum", "demo")])
            case ("POST", "/echo"):
                return .ok(bytes: request.body)
            case ("GET", "/malformed"):
                return .raw("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello")
            default:
                return .notFound
            }
        }
    }

    /// Runs every step; returns the exit status.
    mutating func run() async -> Int32 {
        print("FWNetworking demo: a loopback HTTP/1.1 server on \(server.baseURL)")
        let session = URLSession(configuration: .default)
        await plainGet(session)
        await keepAlive(session)
        await chunked(session)
        await post(session)
        await perHostLimit()
        await malformed(session)
        await pinnedHTTPS()
        await managerJSON()
        await retriedFlakyRequest()
        session.finishTasksAndInvalidate()
        server.stop()
        print(failures == 0 ? "\nAll steps behaved." : "\n\(failures) step(s) misbehaved.")
        return failures == 0 ? 0 : 1
    }

    // MARK: Steps

    private mutating func plainGet(_ session: URLSession) async {
        step("1. A plain GET")
        guard let (body, response) = await load(session, "/hello") else { return }
        show("status \(response.statusCode), body: \(String(decoding: body, as: UTF8.self))",
             ok: response.statusCode == 200)
    }

    private mutating func keepAlive(_ session: URLSession) async {
        step("2. Keep-alive: five more GETs on the same session")
        let before = server.connectionCount
        for _ in 0..<5 { _ = await load(session, "/hello") }
        let opened = server.connectionCount - before
        show("the server saw \(opened) new connection(s) for 5 requests (\(server.connectionCount) in all)",
             ok: opened == 0)
    }

    private mutating func chunked(_ session: URLSession) async {
        step("3. A chunked response")
        guard let (body, response) = await load(session, "/chunked") else { return }
        let text = String(decoding: body, as: UTF8.self)
        show("Transfer-Encoding: \(response.value(forHTTPHeaderField: "Transfer-Encoding") ?? "-"), " +
             "reassembled body: \(text.trimmingCharacters(in: .newlines))", ok: text == "streamed in three chunks\n")
    }

    private mutating func post(_ session: URLSession) async {
        step("4. A POST with a body")
        var request = URLRequest(url: url("/echo"))
        request.httpMethod = "POST"
        request.httpBody = Data("name=FWNetworking&layer=wire".utf8)
        do {
            let (body, _) = try await session.data(for: request)
            show("sent \(request.httpBody?.count ?? 0) bytes, the server echoed \(body.count) bytes back",
                 ok: body == request.httpBody)
        } catch {
            show("failed: \(error)", ok: false)
        }
    }

    private mutating func perHostLimit() async {
        step("5. The per-host limit: 6 slow requests, httpMaximumConnectionsPerHost = 2")
        guard let slowServer = try? DemoServer(route: { _ in
            var reply = DemoServer.Reply.ok("slow\n")
            reply.delay = 0.2
            return reply
        }) else {
            show("cannot start a second loopback server", ok: false)
            return
        }
        defer { slowServer.stop() }
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 2
        let limited = URLSession(configuration: configuration)
        let slowURL = URL(string: slowServer.baseURL + "/slow")!
        let start = Date()
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    let response = try? await limited.data(from: slowURL).1
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = Date().timeIntervalSince(start)
        limited.finishTasksAndInvalidate()
        show(String(format: "6 × 200 in %.2f s over %d connection(s), at most %d open at once; the rest queued",
                    elapsed, slowServer.connectionCount, slowServer.peakConcurrentConnections),
             ok: statuses.allSatisfy { $0 == 200 } && slowServer.peakConcurrentConnections == 2
                && slowServer.connectionCount == 2)
    }

    private mutating func malformed(_ session: URLSession) async {
        step("6. A malformed response (two different Content-Length values)")
        do {
            _ = try await session.data(from: url("/malformed"))
            show("it was accepted, which it must not be", ok: false)
        } catch let error as URLError {
            show("failed cleanly with URLError \(error.code.rawValue) (badServerResponse)",
                 ok: error.code == .badServerResponse)
        } catch {
            show("failed with an unexpected error: \(error)", ok: false)
        }
        let after = await load(session, "/hello")
        show("the session still works afterwards", ok: after?.1.statusCode == 200)
    }

    // MARK: Helpers

    func url(_ path: String) -> URL {
        URL(string: server.baseURL + path)!
    }

    private mutating func load(_ session: URLSession, _ path: String) async -> (Data, HTTPURLResponse)? {
        do {
            let (body, response) = try await session.data(from: url(path))
            if let http = response as? HTTPURLResponse { return (body, http) }
            show("no HTTP response", ok: false)
        } catch {
            show("failed: \(error)", ok: false)
        }
        return nil
    }

    func step(_ title: String) {
        print("\n" + title)
    }

    mutating func show(_ line: String, ok: Bool) {
        print("   \(ok ? "✓" : "✗") \(line.trimmingCharacters(in: .newlines))")
        if !ok { failures += 1 }
    }
}
