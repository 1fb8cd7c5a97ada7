import FWHTTP
import Testing
import TestSupport

// HTTPClient against loopback servers: values in and out, redirects, bodies both ways, limits, the
// callback form, and HTTPS with roots, -k and pins against `openssl s_server`.
@Suite struct HTTPClientTests {
    static func client(_ configure: (inout HTTPClient.Configuration) -> Void = { _ in }) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configure(&configuration)
        return try HTTPClient(configuration: configuration)
    }

    @Test func getKeepsHeaderOrderAndDuplicates() async throws {
        let server = try LoopbackHTTPServer { _ in
            .ok("hello", headers: [("Set-Cookie", "a=1"), ("X-Order", "1"), ("Set-Cookie", "b=2")])
        }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        var request = HTTPClientRequest(url: server.baseURL + "/path?q=1")
        request.headers.add(name: "X-Twice", value: "one")
        request.headers.add(name: "X-Twice", value: "two")
        let (response, body) = try await client.fetch(request)
        #expect(response.status == 200)
        #expect(body == Array("hello".utf8))
        #expect(response.headers.values(name: "Set-Cookie") == ["a=1", "b=2"])
        let names = response.headers.map(\.name)
        #expect(names.firstIndex(of: "X-Order")! > names.firstIndex(of: "Set-Cookie")!)
        let received = try #require(server.requests.first)
        #expect(received.target == "/path?q=1")
        #expect(received.headers.filter { $0.name == "X-Twice" }.map(\.value) == ["one", "two"])
        #expect(response.metrics.last?.requestHeaderBytes ?? 0 > 0)
    }

    @Test func postSendsTheBytes() async throws {
        let server = try LoopbackHTTPServer { request in .ok("got \(request.body.count)") }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        let payload = (0..<70_000).map { UInt8($0 % 251) }
        let (_, body) = try await client.fetch(HTTPClientRequest(method: "POST", url: server.baseURL + "/",
                                                                 body: .bytes(payload)))
        #expect(body == Array("got 70000".utf8))
        #expect(server.requests.first?.body == payload)
    }

    @Test func streamedUploadIsSentChunked() async throws {
        // The pieces come from tasks of the cooperative pool (as many threads as cores), which other tests'
        // blocking waits can hold for seconds on a loaded 2-core machine: the server waits for them longer.
        let server = try LoopbackHTTPServer(ioTimeout: 60) { request in .ok("got \(request.body.count)") }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        let pieces = LockedCounter()
        let body = HTTPClientRequest.Body.stream(length: nil) { _ in
            pieces.next() < 5 ? [UInt8](repeating: 0x61, count: 1000) : nil
        }
        let (_, reply) = try await client.fetch(HTTPClientRequest(method: "PUT", url: server.baseURL + "/", body: body))
        #expect(reply == Array("got 5000".utf8))
        #expect(server.requests.first?.header("Transfer-Encoding") == "chunked")
    }

    @Test func chunkedBodyStreamsWithTrailers() async throws {
        let server = try LoopbackHTTPServer { _ in .chunked(["abc", "defg"], trailers: [("X-Sum", "7")]) }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/"))
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk }
        #expect(bytes == Array("abcdefg".utf8))
        #expect(response.body.trailers?.first(name: "X-Sum") == "7")
    }

    @Test func redirectsAreFollowedAndPostBecomesGet() async throws {
        let server = try LoopbackHTTPServer { request in
            request.target == "/start" ? .status(302, headers: [("Location", "next/../final?x=1")]) : .ok(request.method)
        }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        let (response, body) = try await client.fetch(HTTPClientRequest(method: "POST", url: server.baseURL + "/start",
                                                                        body: .bytes([1, 2, 3])))
        #expect(response.status == 200)
        #expect(body == Array("GET".utf8))
        #expect(response.url.requestTarget == "/final?x=1")
        #expect(server.requests.last?.body == [])
    }

    @Test func redirectLimitAndPolicyNone() async throws {
        let server = try LoopbackHTTPServer { _ in .status(307, headers: [("Location", "/again")]) }
        defer { server.stop() }
        let following = try Self.client { $0.redirectPolicy = .follow(max: 3) }
        defer { following.shutdown() }
        do {
            _ = try await following.fetch(HTTPClientRequest(url: server.baseURL + "/"))
            Issue.record("the redirect limit did not hold")
        } catch {
            #expect(error.isTooManyRedirects)
        }
        #expect(server.requestCount == 4)
        let notFollowing = try Self.client { $0.redirectPolicy = .none }
        defer { notFollowing.shutdown() }
        let (response, _) = try await notFollowing.fetch(HTTPClientRequest(url: server.baseURL + "/"))
        #expect(response.status == 307)
        #expect(response.headers.first(name: "Location") == "/again")
    }

    @Test func wholeRequestTimeoutFailsTheRequest() async throws {
        let server = try LoopbackHTTPServer { _ in .init(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx".utf8), delay: 10) }
        defer { server.stop() }
        let client = try Self.client { $0.requestTimeout = .milliseconds(200) }
        defer { client.shutdown() }
        do {
            _ = try await client.fetch(HTTPClientRequest(url: server.baseURL + "/"))
            Issue.record("a response arrived before the timeout")
        } catch {
            #expect(error.isTimedOut)
        }
    }

    @Test func bodyLimitFailsCollect() async throws {
        let server = try LoopbackHTTPServer { _ in .ok(String(repeating: "z", count: 5000)) }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        do {
            _ = try await client.fetch(HTTPClientRequest(url: server.baseURL + "/"), maxBodyBytes: 100)
            Issue.record("the limit did not hold")
        } catch {
            #expect(error.isBodyTooLarge)
        }
    }

    @Test func badURLsAreErrorsNotCrashes() async throws {
        let client = try Self.client()
        defer { client.shutdown() }
        for (url, isScheme) in [("http://ho st/", false), ("ftp://host/", true)] {
            do {
                _ = try await client.fetch(HTTPClientRequest(url: url))
                Issue.record("\(url) was accepted")
            } catch {
                #expect(isScheme ? error.isUnsupportedScheme : error.isInvalidURL)
            }
        }
    }

    @Test func callbackFormDeliversOnce() async throws {
        let server = try LoopbackHTTPServer { _ in .ok("callback") }
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        let body: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            client.execute(HTTPClientRequest(url: server.baseURL + "/")) { result in
                continuation.resume(with: result.map(\.body))
            }
        }
        #expect(body == Array("callback".utf8))
    }

    @Test func largeBodyFromPythonArrivesWhole() async throws {
        let payload = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let server = try PythonHTTPServer(files: ["big.bin": payload])
        defer { server.stop() }
        let client = try Self.client()
        defer { client.shutdown() }
        let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/big.bin"))
        var received: [UInt8] = []
        var chunks = 0
        for try await chunk in response.body {
            received += chunk
            chunks += 1
            if chunks % 8 == 0 { await Task.yield() }
        }
        #expect(received == payload)
        #expect(response.metrics.last?.responseBodyBytes == Int64(payload.count))
    }

    // MARK: HTTPS

    @Test func httpsWithCustomRootsPinsAndInsecure() async throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let url = "https://localhost:\(server.port)/"
        let roots = try TrustRoots.pemFile(TLSFixtures.path("root-ca.pem"))
        let trusting = try Self.client { $0.tls.trustRoots = roots }
        defer { trusting.shutdown() }
        let (response, _) = try await trusting.fetch(HTTPClientRequest(url: url))
        #expect(response.status == 200)
        #expect(response.metrics.last?.tls != nil)

        let insecure = try Self.client { $0.tls.insecure = true; $0.tls.trustRoots = .certificates([]) }
        defer { insecure.shutdown() }
        #expect(try await insecure.fetch(HTTPClientRequest(url: url)).response.status == 200)

        let untrusting = try Self.client { $0.tls.trustRoots = .certificates([]) }
        defer { untrusting.shutdown() }
        do {
            _ = try await untrusting.fetch(HTTPClientRequest(url: url))
            Issue.record("an unknown root was trusted")
        } catch {
            #expect(error.trustError?.isUnknownRoot == true)
        }

        let pinned = try Self.client { configuration in
            configuration.tls.trustRoots = roots
            configuration.tls.pinnedSPKIHashes = [[UInt8](repeating: 7, count: 32)]
        }
        defer { pinned.shutdown() }
        do {
            _ = try await pinned.fetch(HTTPClientRequest(url: url))
            Issue.record("a pin mismatch was accepted")
        } catch {
            #expect(error.trustError?.isPinMismatch == true)
        }
    }
}

/// A counter for a body stream's calls.
final class LockedCounter: Sendable {
    private let value = LockedBox(0)

    /// The count before this call.
    func next() -> Int { value.withLock { count in defer { count += 1 }; return count } }
}
