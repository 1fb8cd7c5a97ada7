import Foundation
@testable import FWURLSession
import FWTransport
import Testing
import TestSupport

// MARK: - The hosted session loop and captured streams
//
// A stream's channel runs on the process-wide loops, not on the loop the session's delegate queue hosts
// (`SessionEngine.channelLoops`): a captured stream's reads and writes wait for that channel's loop, so
// reading one synchronously inside a delegate callback, which holds the delegate queue, must not deadlock.
// Against Fixtures/stream/peer.py (Python's socketserver): its echo server and its HTTP response that turns
// into an echo stream.

@Suite struct HostedSessionStreamTests {
    /// Captures the streams of every stream task and, inside `didBecome inputStream:outputStream:`, writes
    /// `ping\n` and reads synchronously until `expected` bytes came; answers `.becomeStream` to responses.
    final class SynchronousReader: NSObject, URLSessionStreamDelegate, URLSessionDataDelegate,
        @unchecked Sendable { // state: LockedBox
        let expected: Int
        let read = LockedBox<String?>(nil)
        let onQueue = LockedBox<Bool?>(nil)
        let queue = LockedBox<OperationQueue?>(nil)

        init(expecting expected: Int) {
            self.expected = expected
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            completionHandler(.becomeStream)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                        didBecome streamTask: URLSessionStreamTask) {
            streamTask.captureStreams()
        }

        func urlSession(_ session: URLSession, streamTask: URLSessionStreamTask, didBecome inputStream: InputStream,
                        outputStream: OutputStream) {
            onQueue.withLock { $0 = OperationQueue.current === queue.withLock { $0 } }
            inputStream.open()
            outputStream.open()
            let ping = Array("ping\n".utf8)
            _ = outputStream.write(ping, maxLength: ping.count)
            var bytes = [UInt8](repeating: 0, count: expected)
            var count = 0
            while count < expected {
                let got = bytes.withUnsafeMutableBufferPointer { buffer in
                    inputStream.read(buffer.baseAddress! + count, maxLength: expected - count)
                }
                guard got > 0 else { break }
                count += got
            }
            read.withLock { $0 = String(decoding: bytes[0..<count], as: UTF8.self) }
            inputStream.close()
            outputStream.close()
        }
    }

    private static func session(_ reader: SynchronousReader) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = 60
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        reader.queue.withLock { $0 = session.delegateQueue }
        #expect(session.hostedLoop != nil)
        return session
    }

    @Test func readingACapturedStreamInsideADelegateCallbackDoesNotDeadlock() throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let reader = SynchronousReader(expecting: 5)
        let session = try Self.session(reader)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        task.captureStreams()
        #expect(waitUntil(timeout: 30) { reader.read.withLock { $0 != nil } })
        #expect(reader.read.withLock { $0 } == "ping\n")
        #expect(reader.onQueue.withLock { $0 } == true)
    }

    @Test func aDataTaskThatBecameAStreamIsReadSynchronouslyInsideADelegateCallback() throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        // The connection was the hosted loop's; as a stream it moves to the process-wide loops. The body read
        // before the answer comes first, then the echo.
        let reader = SynchronousReader(expecting: 11)
        let session = try Self.session(reader)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: try #require(URL(string: "http://127.0.0.1:\(peer.httpPort)/stream"))).resume()
        #expect(waitUntil(timeout: 30) { reader.read.withLock { $0 != nil } })
        #expect(reader.read.withLock { $0 } == "hello\nping\n")
        #expect(reader.onQueue.withLock { $0 } == true)
    }
}
