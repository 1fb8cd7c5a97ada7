import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Large collected bodies through the session's `BodyBufferPool`, against a loopback nginx: a completion handler's
// and `data(for:)`'s bodies arrive whole, the buffer of a body the caller let go serves the next body of about
// that size, a body the caller still holds or changes is never written over, and a content-coded body is not
// pooled (its decoded length is not the length announced).
@Suite struct PooledBodyTests {
    static let body = patternBytes((1 << 20) + 3, seed: 21)
    static let other = patternBytes((1 << 20) - 5, seed: 22)

    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["a.bin": body, "b.bin": other])
    }

    /// An ephemeral session without a URL cache (a cached body would keep its buffer).
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }

    @Test func aBodyTheCallerLetGoLendsItsBufferToTheNext() throws {
        let server = try Self.nginx()
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        var first = load(session, URLRequest(url: URL(string: server.baseURL + "/a.bin")!))
        #expect(first.error == nil)
        #expect(first.data == Data(Self.body))
        first.data = nil
        #expect(waitUntil(timeout: 5) { session.bodyBuffers.counts.kept == 1 })
        let second = load(session, URLRequest(url: URL(string: server.baseURL + "/b.bin")!))
        #expect(second.error == nil)
        #expect(second.data == Data(Self.other))
        #expect(session.bodyBuffers.counts.reused == 1)
    }

    @Test func aBodyTheCallerHoldsOrChangesIsNeverWrittenOver() async throws {
        let server = try Self.nginx()
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        var (held, _) = try await session.data(from: URL(string: server.baseURL + "/a.bin")!)
        held[0] ^= 0xFF
        async let second = session.data(from: URL(string: server.baseURL + "/b.bin")!)
        async let third = session.data(from: URL(string: server.baseURL + "/a.bin")!)
        let (bodies, _) = try await ([second.0, third.0], [second.1, third.1])
        #expect(bodies == [Data(Self.other), Data(Self.body)])
        #expect(held.dropFirst() == Data(Self.body).dropFirst())
        #expect(held.first == Self.body[0] ^ 0xFF)
        #expect(session.bodyBuffers.counts.reused == 0)
    }

    @Test(arguments: [(nil, true), ("identity", true), ("gzip", false), ("br", false)] as [(String?, Bool)])
    func onlyABodyWithoutAContentCodingIsPooled(coding: String?, pooled: Bool) throws {
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        var fields = ["Content-Length": "\(1 << 20)"]
        fields["Content-Encoding"] = coding
        let response = try #require(HTTPURLResponse(url: URL(string: "http://example.test/")!, statusCode: 200,
                                                    httpVersion: "HTTP/1.1", headerFields: fields))
        #expect((session.bodyBuffers(for: response) != nil) == pooled)
    }

    @Test(arguments: [(nil, false), ("1000", false), ("\(BodyBufferPool.minimumLength)", true),
                      ("\(BodyBufferPool.maximumLength + 1)", false)] as [(String?, Bool)])
    func onlyABodyOfAPooledLengthIsPooled(length: String?, pooled: Bool) throws {
        let session = Self.session()
        defer { session.invalidateAndCancel() }
        let fields = length.map { ["Content-Length": $0] } ?? [:]
        let response = try #require(HTTPURLResponse(url: URL(string: "http://example.test/")!, statusCode: 200,
                                                    httpVersion: "HTTP/1.1", headerFields: fields))
        #expect((session.bodyBuffers(for: response) != nil) == pooled)
    }
}
