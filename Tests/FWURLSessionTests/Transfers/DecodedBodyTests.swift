import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// Content-encoded bodies under hostile ratios (issue 18, items 4 and 5; issue 29): a small gzip body that
// inflates to 64 MiB arrives in bounded pieces under the same backpressure as raw bytes — delegate and download
// alike — once `maxDecompressionRatio` is turned off, and ends with `dataLengthExceedsMaximum` on every path
// while it is on (the default); a task that collects its body in memory ends the same way instead of growing.
@Suite struct DecodedBodyTests {
    static let decodedSize = 64 << 20

    /// Serves the gzip bomb (with its Content-Length) to every request.
    private static func bombServer() throws -> ScriptedServer {
        let bomb = try GzipBomb.bytes(decodedMebibytes: decodedSize >> 20)
        return try ScriptedServer { connection in
            while try connection.readRequest() != nil {
                try connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
                                     + "Content-Length: \(bomb.count)\r\n\r\n")
                try connection.write(bomb)
            }
        }
    }

    /// Records the largest piece of body a data or download delegate was handed.
    final class PieceDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
        @unchecked Sendable { // vars: in `state`
        struct State {
            var largest = 0
            var total = 0
            var error: URLError?
            var completed = false
        }

        let state = LockedBox(State())

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            state.withLock {
                $0.largest = max($0.largest, data.count)
                $0.total += data.count
            }
        }

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
            state.withLock {
                $0.largest = max($0.largest, Int(bytesWritten))
                $0.total = Int(totalBytesWritten)
            }
        }

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask,
                        didFinishDownloadingTo location: URL) {}

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            state.withLock {
                $0.error = error as? URLError
                $0.completed = true
            }
        }
    }

    /// Streams the bomb to a data or download delegate, with the decoded-size limit on or off.
    private static func stream(_ kind: String, ratioLimited: Bool) throws -> PieceDelegate.State {
        let server = try Self.bombServer()
        defer { server.stop() }
        let delegate = PieceDelegate()
        let configuration = URLSessionConfiguration.default
        if !ratioLimited { configuration.httpResponseLimits.maxDecompressionRatio = 0 }
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/bomb")!
        let task: URLSessionTask = kind == "data" ? session.dataTask(with: url) : session.downloadTask(with: url)
        task.resume()
        #expect(waitUntil(timeout: 30) { delegate.state.withLock { $0.completed } })
        return delegate.state.withLock { $0 }
    }

    @Test(arguments: ["data", "download"])
    func decodedBodiesArriveInBoundedPieces(_ kind: String) throws {
        let state = try Self.stream(kind, ratioLimited: false)
        #expect(state.error == nil)
        #expect(state.total == Self.decodedSize)
        #expect(state.largest <= 64 * 1024)
    }

    @Test(arguments: ["data", "download"])
    func aStreamedBodyThatInflatesBeyondTheRatioIsRefused(_ kind: String) throws {
        let state = try Self.stream(kind, ratioLimited: true)
        #expect(state.error?.code == .dataLengthExceedsMaximum)
        #expect(state.total < 16 << 20, "it stops within its first slices past the 8 MiB allowance")
        #expect(state.largest <= 64 * 1024)
    }

    @Test func aCollectedBodyThatInflatesBeyondTheRatioIsRefused() throws {
        let server = try Self.bombServer()
        defer { server.stop() }
        let session = URLSession(configuration: .default)
        defer { session.invalidateAndCancel() }
        let result = load(session, URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/bomb")!),
                          timeout: 30)
        #expect(result.error?.code == .dataLengthExceedsMaximum)
        #expect(result.data == nil)
    }
}
