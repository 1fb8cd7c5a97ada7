import Foundation
import FWTLS
@testable import FWURLSession
import Testing
import TestSupport

// Upload tasks against Python's http.server (issue 6, "Uploads"): data, a file streamed from disk and an
// InputStream (chunked when its length is unknown); didSendBodyData with the expected length URLSession
// documents; 307/308 replaying the body (streams through needNewBodyStream) and 303 dropping it.
@Suite struct UploadTaskTests {
    /// What the sink answered.
    struct Received: Decodable {
        var method: String
        var path: String
        var length: Int
        var sha256: String
        var chunked: Bool
        var contentLength: String?
    }

    /// Records didSendBodyData, the body and the completion, and answers needNewBodyStream with `newStream`.
    final class UploadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // vars: in `log`
        struct Log {
            var sent: [(bytes: Int64, total: Int64, expected: Int64)] = []
            var newStreamRequests = 0
            var body = Data()
            var completed = false
            var error: (any Error)?
        }

        let log = LockedBox(Log())
        let newStream: (@Sendable () -> InputStream?)?

        init(newStream: (@Sendable () -> InputStream?)? = nil) {
            self.newStream = newStream
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                        totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
            log.withLock { $0.sent.append((bytesSent, totalBytesSent, totalBytesExpectedToSend)) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask,
                        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
            log.withLock { $0.newStreamRequests += 1 }
            completionHandler(newStream?())
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            log.withLock { $0.body.append(data) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            log.withLock {
                $0.error = error
                $0.completed = true
            }
        }
    }

    static let body = patternBytes(3 * 1024 * 1024 + 5, seed: 7)

    static var bodyDigest: String { Digest.sha256.hexHash(body) }

    /// Runs `make`'s task to completion; returns what the sink received and the task.
    static func run(_ delegate: UploadDelegate? = nil,
                    _ make: (URLSession, @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionTask)
        throws -> (Received?, URLError?, URLSessionTask) {
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let result = LockedBox<(Data?, (any Error)?)?>(nil)
        let task = make(session) { data, _, error in result.withLock { $0 = (data, error) } }
        task.resume()
        #expect(waitUntil(timeout: 20) { result.withLock { $0 != nil } })
        let (data, error): (Data?, (any Error)?) = result.withLock { $0 } ?? (nil, URLError(.timedOut))
        let received = try data.map { try JSONDecoder().decode(Received.self, from: $0) }
        return (received, error as? URLError, task)
    }

    static func request(_ server: PythonHTTPServer, _ path: String = "/sink", method: String = "PUT") -> URLRequest {
        var request = URLRequest(url: URL(string: server.baseURL + path)!)
        request.httpMethod = method
        return request
    }

    static func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        return url
    }

    // MARK: Sources

    @Test func dataIsSentWithItsLength() throws {
        let server = try PythonHTTPServer.uploadSink()
        let delegate = UploadDelegate()
        let (received, error, task) = try Self.run(delegate) { session, done in
            session.uploadTask(with: Self.request(server), from: Data(Self.body), completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.length == Self.body.count)
        #expect(received?.sha256 == Self.bodyDigest)
        #expect(received?.contentLength == String(Self.body.count))
        let sent = delegate.log.withLock { $0.sent }
        #expect(sent.last?.total == Int64(Self.body.count))
        #expect(sent.map(\.bytes).reduce(0, +) == Int64(Self.body.count))
        #expect(sent.allSatisfy { $0.expected == Int64(Self.body.count) })
        #expect(task.countOfBytesSent == Int64(Self.body.count))
        #expect(task.progress.completedUnitCount == Int64(Self.body.count))
        #expect(task.progress.totalUnitCount == Int64(Self.body.count))
    }

    @Test func aFileIsStreamedFromDisk() throws {
        let server = try PythonHTTPServer.uploadSink()
        let file = try Self.temporaryFile(Self.body)
        defer { try? FileManager.default.removeItem(at: file) }
        let delegate = UploadDelegate()
        let (received, error, task) = try Self.run(delegate) { session, done in
            session.uploadTask(with: Self.request(server), fromFile: file, completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.sha256 == Self.bodyDigest)
        #expect(received?.chunked == false)
        #expect(task.countOfBytesExpectedToSend == Int64(Self.body.count))
        #expect(delegate.log.withLock { $0.sent.last?.total } == Int64(Self.body.count))
    }

    @Test func aMissingFileFailsTheTask() throws {
        let server = try PythonHTTPServer.uploadSink()
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
        let (_, error, _) = try Self.run { session, done in
            session.uploadTask(with: Self.request(server), fromFile: missing, completionHandler: done)
        }
        #expect(error?.code == .fileDoesNotExist)
    }

    @Test func aStreamOfUnknownLengthIsSentChunked() throws {
        let server = try PythonHTTPServer.uploadSink()
        var request = Self.request(server, method: "POST")
        request.httpBodyStream = InputStream(data: Data(Self.body))
        let delegate = UploadDelegate()
        let (received, error, task) = try Self.run(delegate) { session, done in
            session.dataTask(with: request, completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.chunked == true)
        #expect(received?.sha256 == Self.bodyDigest)
        #expect(task.countOfBytesExpectedToSend == -1)
        #expect(delegate.log.withLock { $0.sent.allSatisfy { $0.expected == -1 } })
    }

    @Test func aStreamWithAContentLengthIsNotChunked() throws {
        let server = try PythonHTTPServer.uploadSink()
        var request = Self.request(server)
        request.httpBodyStream = InputStream(data: Data(Self.body))
        request.setValue(String(Self.body.count), forHTTPHeaderField: "Content-Length")
        let (received, error, _) = try Self.run { session, done in
            session.dataTask(with: request, completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.chunked == false)
        #expect(received?.length == Self.body.count)
    }

    @Test func asyncUploadFromAFile() async throws {
        let server = try PythonHTTPServer.uploadSink()
        let file = try Self.temporaryFile(Self.body)
        defer { try? FileManager.default.removeItem(at: file) }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.upload(for: Self.request(server), fromFile: file)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONDecoder().decode(Received.self, from: data).sha256 == Self.bodyDigest)
    }

    // MARK: Redirects

    @Test(arguments: [307, 308])
    func aRedirectThatKeepsTheMethodReplaysTheFile(status: Int) throws {
        let server = try PythonHTTPServer.uploadSink()
        let file = try Self.temporaryFile(Self.body)
        defer { try? FileManager.default.removeItem(at: file) }
        let delegate = UploadDelegate()
        let (received, error, _) = try Self.run(delegate) { session, done in
            session.uploadTask(with: Self.request(server, "/redirect/\(status)", method: "POST"), fromFile: file,
                               completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.path == "/sink")
        #expect(received?.method == "POST")
        #expect(received?.sha256 == Self.bodyDigest)
        // Both requests sent the whole body; the second one's progress starts again from 0.
        let sent = delegate.log.withLock { $0.sent }
        #expect(sent.map(\.bytes).reduce(0, +) == 2 * Int64(Self.body.count))
        #expect(sent.last?.total == Int64(Self.body.count))
    }

    @Test func aRedirectedStreamAsksForANewStream() throws {
        let server = try PythonHTTPServer.uploadSink()
        var request = Self.request(server, "/redirect/307", method: "POST")
        request.httpBodyStream = InputStream(data: Data(Self.body))
        let delegate = UploadDelegate { InputStream(data: Data(Self.body)) }
        let (received, error, _) = try Self.run(delegate) { session, done in
            session.dataTask(with: request, completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.path == "/sink")
        #expect(received?.sha256 == Self.bodyDigest)
        #expect(delegate.log.withLock { $0.newStreamRequests } == 1)
    }

    @Test func aStreamedRequestWithoutStreamAsksTheDelegateFirst() throws {
        let server = try PythonHTTPServer.uploadSink()
        let delegate = UploadDelegate { InputStream(data: Data(Self.body)) }
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        session.uploadTask(withStreamedRequest: Self.request(server, method: "POST")).resume()
        #expect(waitUntil(timeout: 20) { delegate.log.withLock { $0.completed } })
        let log = delegate.log.withLock { $0 }
        #expect(log.error == nil)
        #expect(log.newStreamRequests == 1)
        #expect(try JSONDecoder().decode(Received.self, from: log.body).sha256 == Self.bodyDigest)
    }

    @Test func withoutANewStreamTheRedirectedUploadFails() throws {
        let server = try PythonHTTPServer.uploadSink()
        var request = Self.request(server, "/redirect/307", method: "POST")
        request.httpBodyStream = InputStream(data: Data(Self.body))
        let delegate = UploadDelegate()
        let (_, error, _) = try Self.run(delegate) { session, done in
            session.dataTask(with: request, completionHandler: done)
        }
        #expect(error != nil)
        #expect(delegate.log.withLock { $0.newStreamRequests } == 1)
    }

    @Test func a303TurnsTheUploadIntoAGetWithoutBody() throws {
        let server = try PythonHTTPServer.uploadSink()
        let (received, error, _) = try Self.run { session, done in
            session.uploadTask(with: Self.request(server, "/redirect/303", method: "POST"), from: Data(Self.body),
                               completionHandler: done)
        }
        #expect(error == nil)
        #expect(received?.method == "GET")
        #expect(received?.length == 0)
        #expect(received?.contentLength == nil)
    }
}
