import FWHTTP
import Testing
import TestSupport

// HTTPClient's blocking form (`blockingExecute`, `Body.blockingNext`), as fwget uses it: each call runs on a
// thread of its own (`onOwnThread`), as in a program without Swift concurrency, never on a cooperative thread.
@Suite struct BlockingClientTests {
    /// Every chunk of `response`'s body, read with `blockingNext`.
    static func readAll(_ response: HTTPClientResponse) throws(HTTPClientError) -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try response.body.blockingNext() { bytes += chunk }
        return bytes
    }

    @Test func getReturnsTheHeadThenEveryChunkAndTheTrailers() async throws {
        let server = try LoopbackHTTPServer { _ in .chunked(["abc", "defg"], trailers: [("X-Sum", "7")]) }
        defer { server.stop() }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let url = server.baseURL + "/chunks"
        let (status, bytes, trailer) = try await onOwnThread {
            let response = try client.blockingExecute(HTTPClientRequest(url: url))
            let bytes = try Self.readAll(response)
            return (response.status, bytes, response.body.trailers?.first(name: "X-Sum"))
        }
        #expect(status == 200)
        #expect(bytes == Array("abcdefg".utf8))
        #expect(trailer == "7")
        #expect(server.requests.first?.target == "/chunks")
    }

    @Test func aLargeBodyArrivesWholeThroughTheBackpressure() async throws {
        // 1 MiB: past the exchange's high-water mark, so the socket's reading pauses and resumes.
        let payload = String(repeating: "0123456789abcdef", count: 65_536)
        let server = try LoopbackHTTPServer { _ in .ok(payload) }
        defer { server.stop() }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let url = server.baseURL + "/"
        let bytes = try await onOwnThread {
            try Self.readAll(try client.blockingExecute(HTTPClientRequest(url: url)))
        }
        #expect(bytes.count == payload.utf8.count)
        #expect(bytes == Array(payload.utf8))
    }

    @Test func redirectsAreFollowedAsByTheAsyncForm() async throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/start" ? .status(303, headers: [("Location", "/final")]) : .ok(request.method)
        }
        defer { server.stop() }
        let client = try HTTPClient(configuration: HTTPClient.Configuration(redirectPolicy: .follow(max: 5)))
        defer { client.shutdown() }
        let url = server.baseURL + "/start"
        let (finalURL, bytes, metrics) = try await onOwnThread {
            var request = HTTPClientRequest(url: url)
            request.method = "POST"
            request.body = .bytes(Array("form".utf8))
            let response = try client.blockingExecute(request)
            let bytes = try Self.readAll(response)
            // The redirect's exchange runs to its end beside the next hop; its metrics come with that end.
            _ = waitUntil(timeout: 5) { response.metrics.transactions.count == 2 }
            return (response.url.description, bytes, response.metrics)
        }
        #expect(finalURL.hasSuffix("/final"))
        #expect(bytes == Array("GET".utf8))
        #expect(server.requests.map(\.method) == ["POST", "GET"])
        #expect(server.requests.map(\.target) == ["/start", "/final"])
        #expect(metrics.transactions.count == 2, "one transaction per hop")
        #expect(server.connectionCount == 1, "the redirect's connection was reused")
    }

    @Test func aRedirectWithALargeBodyIsAbandonedAndTheNextHopStillArrives() async throws {
        // Past 64 KiB a redirect's body is not worth reading to keep its connection: the hop is aborted.
        let big = Array("HTTP/1.1 302 Found\r\nLocation: /final\r\nContent-Length: 4000000\r\n\r\n".utf8)
            + [UInt8](repeating: 0x7a, count: 4_000_000)
        let server = try LoopbackHTTPServer { request in
            request.target == "/start" ? .init(bytes: big) : .ok("done")
        }
        defer { server.stop() }
        let client = try HTTPClient()
        defer { client.shutdown() }
        let url = server.baseURL + "/start"
        let bytes = try await onOwnThread { try Self.readAll(try client.blockingExecute(HTTPClientRequest(url: url))) }
        #expect(bytes == Array("done".utf8))
        #expect(server.requests.map(\.target) == ["/start", "/final"])
        #expect(server.connectionCount == 2)
    }

    @Test func theWholeRequestTimeoutWakesTheBlockedThread() async throws {
        let server = try LoopbackHTTPServer { _ in .init(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx".utf8), delay: 10) }
        defer { server.stop() }
        var configuration = HTTPClient.Configuration()
        configuration.requestTimeout = .milliseconds(200)
        let client = try HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        let url = server.baseURL + "/"
        do {
            _ = try await onOwnThread {
                try client.blockingExecute(HTTPClientRequest(url: url))
            }
            Issue.record("a response arrived before the timeout")
        } catch {
            #expect((error as? HTTPClientError)?.isTimedOut == true, "\(error)")
        }
    }

    @Test func aRefusedConnectionAndABadURLAreErrors() async throws {
        let client = try HTTPClient()
        defer { client.shutdown() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        do {
            _ = try await onOwnThread {
                try client.blockingExecute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"))
            }
            Issue.record("a refused connection succeeded")
        } catch let error as HTTPClientError {
            #expect(error.transportError != nil)
        }
        do {
            _ = try await onOwnThread {
                try client.blockingExecute(HTTPClientRequest(url: "http://[::1"))
            }
            Issue.record("a bad URL was sent")
        } catch let error as HTTPClientError {
            #expect(error.isInvalidURL)
        }
    }
}
