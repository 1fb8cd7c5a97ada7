import Foundation
import FWNetworking
import Testing
import TestSupport

// Interoperability with a server nobody here wrote: Python's http.server on 127.0.0.1.
@Suite struct PythonHTTPServerInteropTests {
    @Test func getsFilesOverOneKeptAliveSession() async throws {
        let big = [UInt8]((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let server = try PythonHTTPServer(files: ["hello.txt": Array("hello, python\n".utf8), "big.bin": big])
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        let (small, response) = try await session.data(from: URL(string: server.baseURL + "/hello.txt")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(small == Data("hello, python\n".utf8))
        #expect(http.mimeType == "text/plain")
        #expect(http.expectedContentLength == 14)
        #expect(http.value(forHTTPHeaderField: "server")?.contains("Python") == true)

        let (bigBody, _) = try await session.data(from: URL(string: server.baseURL + "/big.bin")!)
        #expect(bigBody == Data(big))
    }

    @Test func aMissingFileIsA404WithABody() async throws {
        let server = try PythonHTTPServer(files: [:])
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (body, response) = try await session.data(from: URL(string: server.baseURL + "/nope")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        #expect(!body.isEmpty)
    }

    @Test func headRequestsExpectNoBody() async throws {
        let server = try PythonHTTPServer(files: ["file.txt": Array(repeating: 65, count: 1000)])
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: server.baseURL + "/file.txt")!)
        request.httpMethod = "HEAD"
        let (body, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.expectedContentLength == 1000)
        #expect(body.isEmpty)
        // The connection stays usable after a HEAD whose Content-Length announced a body.
        let (again, _) = try await session.data(from: URL(string: server.baseURL + "/file.txt")!)
        #expect(again.count == 1000)
    }
}
