import Foundation
import FWNetworking
import Testing
import TestSupport

// Codings end to end through URLSession and fwcurl, against loopback peers: nginx serving files encoded by
// Debian's brotli tool with `Content-Encoding: br` (issue 28, item 3), and a `Transfer-Encoding: gzip,
// chunked` response, which is decoded, never handed over encoded (issue 29, item 3).
@Suite struct ContentCodingTests {
    static let text = String(repeating: "FWNetworking decodes brotli. ", count: 2_000)

    /// nginx serving `files` (name → bytes) with `Content-Encoding: br` on every `.br` file.
    static func brotliServer(_ files: [String: [UInt8]]) throws -> NginxServer {
        try NginxServer(files: files, serverConfig: """
            location ~ \\.br$ {
                types { } default_type text/plain;
                gzip off;
                add_header Content-Encoding br;
                add_header X-Accept-Encoding $http_accept_encoding;
            }
            """)
    }

    /// The code of the URLError that fetching `name` from `brotliServer([name: body])` fails with.
    static func failure(fetching name: String, body: [UInt8]) async throws -> URLError.Code? {
        let server = try brotliServer([name: body])
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let error = await #expect(throws: URLError.self) {
            _ = try await session.data(from: URL(string: server.baseURL + "/" + name)!)
        }
        return error?.code
    }

    @Test func aBrotliBodyIsDecodedAndBrIsAdvertised() async throws {
        let server = try Self.brotliServer(["page.br": try BrotliTool.encode(Array(Self.text.utf8))])
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (body, response) = try await session.data(from: URL(string: server.baseURL + "/page.br")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.value(forHTTPHeaderField: "Content-Encoding") == "br")
        #expect(String(decoding: body, as: UTF8.self) == Self.text)
        // nginx echoes the Accept-Encoding it received: the session's default asks for br.
        #expect(http.value(forHTTPHeaderField: "X-Accept-Encoding") == "gzip, deflate, br")
    }

    @Test func aBadBrotliBodyFailsAsABadGzipBodyDoes() async throws {
        let code = try await Self.failure(fetching: "bad.br", body: Array("certainly not brotli".utf8))
        #expect(code == .cannotDecodeContentData)
    }

    // Bounded like gzip: a few dozen bytes that would grow to 32 MiB end with the decoded-size error.
    @Test func aBrotliBombEndsWithTheDecodedSizeLimit() async throws {
        let code = try await Self.failure(fetching: "bomb.br", body: try BrotliTool.bomb(decodedMebibytes: 32))
        #expect(code == .dataLengthExceedsMaximum)
    }

    @Test func fwcurlCompressedAsksForBrAndDecodesIt() throws {
        let server = try Self.brotliServer(["page.br": try BrotliTool.encode(Array(Self.text.utf8))])
        defer { server.stop() }
        let compressed = try Fwcurl.run(["--compressed", "-v", "-s", server.baseURL + "/page.br"])
        #expect(compressed.stderr.contains("> Accept-Encoding: deflate, gzip, br"), "\(compressed.stderr)")
        #expect(compressed.text == Self.text)
        #expect(compressed.status == 0)
    }

    // MARK: Transfer codings (issue 29, item 3)

    @Test func aGzipTransferCodingIsDecodedNeverHandedOverEncoded() async throws {
        let plain = Array(Self.text.utf8)
        let gzipped = try ZlibTool.compress(plain, gzip: true)
        let server = try LoopbackHTTPServer { request in
            switch request.target {
            case "/te-gzip":
                var chunked: [UInt8] = []
                for start in stride(from: 0, to: gzipped.count, by: 1000) {
                    let chunk = gzipped[start..<min(start + 1000, gzipped.count)]
                    chunked += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
                }
                let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Type: text/plain\r\n\r\n"
                return LoopbackHTTPServer.Reply(bytes: Array(head.utf8) + chunked + Array("0\r\n\r\n".utf8))
            default:
                let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: compress, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                return LoopbackHTTPServer.Reply(bytes: Array(head.utf8))
            }
        }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: server.baseURL + "/te-gzip")!)
        // Transfer codings are the hop's: undone even when the request asks for the content as stored.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let (body, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(body == Data(plain))

        let error = await #expect(throws: URLError.self) {
            _ = try await session.data(from: URL(string: server.baseURL + "/te-compress")!)
        }
        #expect(error?.code == .badServerResponse)
    }
}
