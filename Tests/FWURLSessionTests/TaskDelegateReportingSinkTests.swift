import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// The async `data` and `upload` methods tell the delegate given to the call the data messages, and honour
// its disposition, while the body is still collected for the call's result.
@Suite struct TaskDelegateReportingSinkTests {
    private static func makeServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in .ok(request.method == "POST" ? "posted" : "hello") }
    }

    @Test(arguments: [URLSession.ResponseDisposition.allow, .becomeDownload])
    func theCallsDelegateHearsTheResponseAndTheBody(_ disposition: URLSession.ResponseDisposition) async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let recorder = ProtocolRecorder(ProtocolRecorder.Answers(disposition: disposition))
        let (data, response) = try await session.data(for: URLRequest(url: url(server, "/")), delegate: recorder)
        #expect(data == Data("hello".utf8))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(recorder.lines == ["created", "response 200", "data 5", "metrics"])
        #expect(recorder.log.withLock { $0.body } == data)
    }

    @Test func aCancelDispositionCancelsTheCall() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let recorder = ProtocolRecorder(ProtocolRecorder.Answers(disposition: .cancel))
        await #expect { try await session.data(from: url(server, "/"), delegate: recorder) } throws: {
            ($0 as? URLError)?.code == .cancelled
        }
        #expect(!recorder.lines.contains { $0.hasPrefix("data") })
    }

    @Test func uploadsReportTheirResponseToo() async throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let recorder = ProtocolRecorder()
        var request = URLRequest(url: url(server, "/"))
        request.httpMethod = "POST"
        let (data, _) = try await session.upload(for: request, from: Data("x".utf8), delegate: recorder)
        #expect(data == Data("posted".utf8))
        #expect(recorder.lines.contains("response 200"))
        #expect(recorder.lines.contains("data 6"))
    }

    @Test func completionHandlerTasksTellNoDelegateAboutTheirData() throws {
        let server = try Self.makeServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let recorder = ProtocolRecorder()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: url(server, "/")) { _, _, _ in done.signal() }
        task.delegate = recorder
        task.resume()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(!recorder.lines.contains { $0.hasPrefix("response") || $0.hasPrefix("data") })
    }
}
