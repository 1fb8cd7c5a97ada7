import Foundation
import FWNetworking
import FWTLS
import Testing
import TestSupport

// URLSessionStreamTask end to end against peers nobody here wrote: Fixtures/stream/peer.py (Python's
// socketserver and ssl: an echo server, a line protocol that switches to TLS and back, an HTTP response that
// turns into an echo stream) and `openssl s_server -rev` for TLS right after connecting. Read and write
// semantics, half-closes, timeouts, cancel, TLS with the session's trust (accepted and refused), TLS stopped
// mid-stream, `.becomeStream`, `captureStreams()` and the delegate messages.
@Suite struct StreamTaskTests {
    /// What the delegate heard, in order; answers server-trust challenges as `trustAnswer` says.
    final class Recorder: NSObject, URLSessionStreamDelegate, URLSessionDataDelegate,
        @unchecked Sendable { // state: LockedBoxes
        enum Event: Equatable {
            case challenge(String)
            case readClosed
            case writeClosed
            case becameStream
            case capturedStreams
            case completed(URLError.Code?)
        }

        let events = LockedBox<[Event]>([])
        let trustAnswer: URLSession.AuthChallengeDisposition
        let becomeStream: Bool
        let streamTask = LockedBox<URLSessionStreamTask?>(nil)
        let streams = LockedBox<(InputStream, OutputStream)?>(nil)
        /// Called with the stream task a data task became, inside that delegate message.
        let onBecameStream: (@Sendable (URLSessionStreamTask) -> Void)?

        init(trustAnswer: URLSession.AuthChallengeDisposition = .performDefaultHandling, becomeStream: Bool = false,
             onBecameStream: (@Sendable (URLSessionStreamTask) -> Void)? = nil) {
            self.trustAnswer = trustAnswer
            self.becomeStream = becomeStream
            self.onBecameStream = onBecameStream
        }

        func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                            -> Void) {
            events.withLock { $0.append(.challenge(challenge.protectionSpace.authenticationMethod)) }
            completionHandler(trustAnswer, nil)
        }

        func urlSession(_ session: URLSession, readClosedFor streamTask: URLSessionStreamTask) {
            events.withLock { $0.append(.readClosed) }
        }

        func urlSession(_ session: URLSession, writeClosedFor streamTask: URLSessionStreamTask) {
            events.withLock { $0.append(.writeClosed) }
        }

        func urlSession(_ session: URLSession, streamTask: URLSessionStreamTask, didBecome inputStream: InputStream,
                        outputStream: OutputStream) {
            events.withLock { $0.append(.capturedStreams) }
            streams.withLock { $0 = (inputStream, outputStream) }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            completionHandler(becomeStream ? .becomeStream : .allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask,
                        didBecome streamTask: URLSessionStreamTask) {
            events.withLock { $0.append(.becameStream) }
            self.streamTask.withLock { $0 = streamTask }
            onBecameStream?(streamTask)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            events.withLock { $0.append(.completed((error as? URLError)?.code)) }
        }

        /// Waits (bounded) for the completion and returns every event.
        func awaitCompletion() -> [Event] {
            _ = waitUntil(timeout: 30) {
                events.withLock { $0.contains { if case .completed = $0 { true } else { false } } }
            }
            return events.withLock { $0 }
        }
    }

    private static func session(_ recorder: Recorder) throws -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = 60
        let roots = try Certificate.certificates(pemFile: TLSFixtures.path("root-ca.pem"))
        configuration.tlsTrustRoots = .certificates(roots)
        return URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
    }

    /// A bound on every read in these tests, so a read that is never answered fails instead of hanging.
    private static let bound: TimeInterval = 30

    private static func write(_ task: URLSessionStreamTask, _ text: String) async throws {
        try await task.write(Data(text.utf8), timeout: bound)
    }

    /// Reads until `count` bytes came (or the end), as text.
    private static func read(_ task: URLSessionStreamTask, exactly count: Int) async throws -> String {
        let (data, _) = try await task.readData(ofMinLength: count, maxLength: count, timeout: bound)
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    // MARK: Reading and writing

    @Test func readsHonourMinimumAndMaximum() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        try await Self.write(task, "0123456789")
        #expect(try await Self.read(task, exactly: 10) == "0123456789")
        try await Self.write(task, "abcdef")
        var collected = ""
        for _ in 0..<6 where collected.count < 6 {
            let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 2, timeout: Self.bound)
            let piece = data ?? Data()
            #expect((1...2).contains(piece.count))
            #expect(!atEOF)
            collected += String(decoding: piece, as: UTF8.self)
        }
        #expect(collected == "abcdef")
        task.cancel()
        #expect(recorder.awaitCompletion() == [.completed(.cancelled)])
    }

    @Test func closeWriteReachesThePeerAndItsEndIsRead() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        try await Self.write(task, "bye")
        task.closeWrite()
        // The peer ends its side only once it read ours.
        let (data, atEOF) = try await task.readData(ofMinLength: 10, maxLength: 10, timeout: Self.bound)
        #expect(data == Data("bye".utf8))
        #expect(atEOF)
        let (after, stillEOF) = try await task.readData(ofMinLength: 1, maxLength: 10, timeout: Self.bound)
        #expect(after == nil)
        #expect(stillEOF)
        await #expect(throws: URLError.self) { try await Self.write(task, "late") }
        #expect(recorder.awaitCompletion() == [.writeClosed, .readClosed, .completed(nil)])
    }

    @Test func writeAfterCloseWriteFails() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        task.closeWrite()
        let error = await #expect(throws: URLError.self) { try await Self.write(task, "x") }
        #expect(error?.code == .networkConnectionLost)
        task.cancel()
    }

    @Test func closeReadEndsReading() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        try await Self.write(task, "x")
        #expect(try await Self.read(task, exactly: 1) == "x")
        task.closeRead()
        let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 10, timeout: Self.bound)
        #expect(data == nil)
        #expect(atEOF)
        // Writing still works after the read side closed.
        try await Self.write(task, "y")
        task.closeWrite()
        #expect(recorder.awaitCompletion() == [.writeClosed, .completed(nil)])
    }

    @Test func aReadTimesOut() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        let error = await #expect(throws: URLError.self) {
            _ = try await task.readData(ofMinLength: 1, maxLength: 10, timeout: 0.2)
        }
        #expect(error?.code == .timedOut)
        // The stream goes on after a read timed out.
        try await Self.write(task, "still")
        #expect(try await Self.read(task, exactly: 5) == "still")
        task.cancel()
    }

    @Test func cancelFailsAPendingRead() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        let result = LockedBox<URLError.Code?>(nil)
        task.readData(ofMinLength: 1, maxLength: 10, timeout: Self.bound) { _, _, error in
            result.withLock { $0 = (error as? URLError)?.code }
        }
        try await Self.write(task, "")
        task.cancel()
        #expect(recorder.awaitCompletion() == [.completed(.cancelled)])
        _ = waitUntil(timeout: 10) { result.withLock { $0 } != nil }
        #expect(result.withLock { $0 } == .cancelled)
    }

    @Test func aRefusedConnectionFails() async throws {
        let port = try RefusingPort()
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: port.port)
        task.resume()
        let error = await #expect(throws: URLError.self) { _ = try await Self.read(task, exactly: 1) }
        #expect(error?.code == .cannotConnectToHost)
        #expect(recorder.awaitCompletion() == [.completed(.cannotConnectToHost)])
    }

    /// A task's own delegate that implements one stream message only.
    final class WriteClosedOnly: NSObject, URLSessionStreamDelegate, @unchecked Sendable { // state: a LockedBox
        let heard = LockedBox<[String]>([])

        func urlSession(_ session: URLSession, writeClosedFor streamTask: URLSessionStreamTask) {
            heard.withLock { $0.append("writeClosed") }
        }
    }

    @Test func theTasksDelegateHearsWhatItImplementsAndTheSessionsTheRest() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let own = WriteClosedOnly()
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.delegate = own
        task.resume()
        try await Self.write(task, "z")
        task.closeWrite()
        let (data, atEOF) = try await task.readData(ofMinLength: 2, maxLength: 2, timeout: Self.bound)
        #expect(data == Data("z".utf8))
        #expect(atEOF)
        #expect(recorder.awaitCompletion() == [.readClosed, .completed(nil)])
        #expect(own.heard.withLock { $0 } == ["writeClosed"])
    }

    // MARK: TLS

    @Test func tlsRightAfterConnecting() async throws {
        let server = try OpenSSLServer.start(www: false, extra: ["-rev"])
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: server.port)
        task.resume()
        task.startSecureConnection()
        try await Self.write(task, "hello\n")
        #expect(try await Self.read(task, exactly: 6) == "olleh\n")
        task.cancel()
        #expect(recorder.awaitCompletion() == [
            .challenge(NSURLAuthenticationMethodServerTrust), .completed(.cancelled),
        ])
    }

    @Test func closeWriteOnTLSAnnouncesTheEnd() async throws {
        let server = try OpenSSLServer.start(www: false, extra: ["-rev"])
        defer { server.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: server.port)
        task.resume()
        task.startSecureConnection()
        try await Self.write(task, "ab\n")
        #expect(try await Self.read(task, exactly: 3) == "ba\n")
        // close_notify, then the write side's shutdown: s_server ends the connection when it reads them.
        task.closeWrite()
        let (data, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 10, timeout: Self.bound)
        #expect(data == nil)
        #expect(atEOF)
        #expect(recorder.awaitCompletion() == [
            .challenge(NSURLAuthenticationMethodServerTrust), .writeClosed, .readClosed, .completed(nil),
        ])
    }

    @Test func tlsStartedAndStoppedMidStream() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.startTLSPort)
        task.resume()
        try await Self.write(task, "one\n")
        #expect(try await Self.read(task, exactly: 9) == "ECHO one\n")
        try await Self.write(task, "STARTTLS\n")
        #expect(try await Self.read(task, exactly: 3) == "GO\n")
        task.startSecureConnection()
        try await Self.write(task, "two\n")
        #expect(try await Self.read(task, exactly: 9) == "ECHO two\n")
        try await Self.write(task, "STOPTLS\n")
        task.stopSecureConnection()
        #expect(try await Self.read(task, exactly: 6) == "PLAIN\n")
        try await Self.write(task, "three\n")
        #expect(try await Self.read(task, exactly: 11) == "ECHO three\n")
        task.cancel()
        #expect(recorder.awaitCompletion() == [
            .challenge(NSURLAuthenticationMethodServerTrust), .completed(.cancelled),
        ])
    }

    @Test func aRefusedServerTrustEndsTheStream() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        // What a pinning delegate answers for a certificate it does not pin.
        let recorder = Recorder(trustAnswer: .rejectProtectionSpace)
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.startTLSPort)
        task.resume()
        try await Self.write(task, "STARTTLS\n")
        #expect(try await Self.read(task, exactly: 3) == "GO\n")
        task.startSecureConnection()
        let error = await #expect(throws: URLError.self) { _ = try await Self.read(task, exactly: 1) }
        #expect(error?.code == .serverCertificateUntrusted)
        #expect(recorder.awaitCompletion() == [
            .challenge(NSURLAuthenticationMethodServerTrust), .completed(.serverCertificateUntrusted),
        ])
    }

    // MARK: Becoming a stream, capturing streams

    @Test func aDataTaskBecomesAStream() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder(becomeStream: true)
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:\(peer.httpPort)/stream"))
        session.dataTask(with: url).resume()
        _ = waitUntil(timeout: 30) { recorder.streamTask.withLock { $0 } != nil }
        let task = try #require(recorder.streamTask.withLock { $0 })
        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(task.originalRequest?.url == url)
        // The body read before the answer comes first.
        #expect(try await Self.read(task, exactly: 6) == "hello\n")
        try await Self.write(task, "ping")
        #expect(try await Self.read(task, exactly: 4) == "ping")
        task.closeWrite()
        let (_, atEOF) = try await task.readData(ofMinLength: 1, maxLength: 10, timeout: Self.bound)
        #expect(atEOF)
        #expect(recorder.awaitCompletion() == [.becameStream, .writeClosed, .readClosed, .completed(nil)])
    }

    @Test func aResponseCompleteBeforeTheAnswerBecomesAStreamOfItsBody() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder(becomeStream: true)
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:\(peer.httpPort)/complete"))
        session.dataTask(with: url).resume()
        _ = waitUntil(timeout: 30) { recorder.streamTask.withLock { $0 } != nil }
        let task = try #require(recorder.streamTask.withLock { $0 })
        // Its connection went back to the pool: the stream holds the body, then its end.
        let (data, atEOF) = try await task.readData(ofMinLength: 100, maxLength: 100, timeout: Self.bound)
        #expect(data == Data("hello\n".utf8))
        #expect(atEOF)
        #expect(recorder.awaitCompletion() == [.becameStream, .readClosed, .completed(nil)])
    }

    // Reads made before the stream knows the response ended (here inside `didBecome`, ahead of that event on
    // the delegate queue) wait, and are answered with the body read so far, in order, when it ends.
    @Test func readsMadeBeforeTheResponseEndedTakeItsBodyInOrder() throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let reads = LockedBox<[(String, Bool)]>([])
        let recorder = Recorder(becomeStream: true) { streamTask in
            for _ in 0..<2 {
                streamTask.readData(ofMinLength: 1, maxLength: 3, timeout: Self.bound) { data, atEOF, _ in
                    reads.withLock { $0.append((String(decoding: data ?? Data(), as: UTF8.self), atEOF)) }
                }
            }
        }
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: try #require(URL(string: "http://127.0.0.1:\(peer.httpPort)/complete"))).resume()
        #expect(recorder.awaitCompletion() == [.becameStream, .readClosed, .completed(nil)])
        _ = waitUntil(timeout: 10) { reads.withLock { $0.count } == 2 }
        let answered = reads.withLock { $0 }
        #expect(answered.map(\.0) == ["hel", "lo\n"])
        #expect(answered.map(\.1) == [false, true])
    }

    @Test func capturedStreamsCarryTheConnection() async throws {
        let peer = try PythonStreamPeer()
        defer { peer.stop() }
        let recorder = Recorder()
        let session = try Self.session(recorder)
        defer { session.invalidateAndCancel() }
        let task = session.streamTask(withHostName: "127.0.0.1", port: peer.echoPort)
        task.resume()
        try await Self.write(task, "a")
        #expect(try await Self.read(task, exactly: 1) == "a")
        task.captureStreams()
        #expect(recorder.awaitCompletion() == [.capturedStreams, .completed(nil)])
        let (input, output) = try #require(recorder.streams.withLock { $0 })
        input.open()
        output.open()
        #expect(output.write(Array("xyz".utf8), maxLength: 3) == 3)
        output.close()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16)
        for _ in 0..<10 {
            let count = input.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        #expect(received == Array("xyz".utf8))
        #expect(input.streamStatus == .atEnd)
        input.close()
    }
}
