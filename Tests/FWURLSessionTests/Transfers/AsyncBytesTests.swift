import Foundation
@testable import FWURLSession
import Testing
import TestSupport

// `bytes(for:)` (issue 6, "Async API"): the body as an AsyncSequence of bytes whose backpressure reaches
// the socket, and Swift task cancellation that cancels the URLSession task.
@Suite struct AsyncBytesTests {
    static let body = patternBytes(2 * 1024 * 1024 + 3, seed: 11)
    /// Far more than the task buffers (the feed's 1 MiB, the delivery queue's 4 MiB, the socket's).
    static let bigBody = [UInt8](repeating: 0x5A, count: 32 * 1024 * 1024)

    static func nginx() throws -> NginxServer {
        try NginxServer(files: ["medium.bin": body, "big.bin": bigBody, "small.txt": Array("hello, bytes".utf8)])
    }

    @Test func theSequenceYieldsTheWholeBody() async throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (bytes, response) = try await session.bytes(from: URL(string: server.baseURL + "/medium.bin")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        var received: [UInt8] = []
        received.reserveCapacity(Self.body.count)
        for try await byte in bytes { received.append(byte) }
        #expect(received == Self.body)
        #expect(bytes.task.state == .completed)
    }

    @Test func aDecodedBodyArrivesDecoded() async throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (bytes, response) = try await session.bytes(from: URL(string: server.baseURL + "/small.txt")!)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
        var received: [UInt8] = []
        for try await byte in bytes { received.append(byte) }
        #expect(String(decoding: received, as: UTF8.self) == "hello, bytes")
    }

    @Test func aConsumerThatStopsReadingHoldsTheServerBack() async throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (bytes, _) = try await session.bytes(from: URL(string: server.baseURL + "/big.bin")!)
        var iterator = bytes.makeAsyncIterator()
        _ = try await iterator.next()
        // Nobody reads: the feed suspends the task, delivery stops, the connection stops reading.
        let task = bytes.task
        #expect(await waitUntilAsync(timeout: 5) { task.state == .suspended })
        // Every drain scheduled so far has ended (the delegate queue is serial); whatever reached the task
        // since it was suspended stays held.
        await Self.drainDelegateQueue(of: session)
        let stalled = task.countOfBytesReceived
        await Self.drainDelegateQueue(of: session)
        #expect(task.countOfBytesReceived == stalled, "no more bytes delivered while the consumer is idle")
        #expect(stalled < Int64(Self.bigBody.count) / 2)
        // Reading again resumes the task.
        for _ in 0..<(2 * 1024 * 1024) { _ = try await iterator.next() }
        #expect(await waitUntilAsync(timeout: 5) { task.countOfBytesReceived > stalled })
        task.cancel()
    }

    /// Returns once every operation queued on the session's (serial) delegate queue before the call has run.
    private static func drainDelegateQueue(of session: URLSession) async {
        await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation { continuation.resume() }
        }
    }

    @Test func cancellingTheSwiftTaskCancelsTheLoad() async throws {
        let server = try Self.nginx()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (bytes, _) = try await session.bytes(from: URL(string: server.baseURL + "/big.bin")!)
        let reader = Task {
            var count = 0
            for try await _ in bytes {
                count += 1
                if count == 1000 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        await #expect(throws: URLError.self) { _ = try await reader.value }
        #expect(await waitUntilAsync(timeout: 5) { bytes.task.state == .completed })
        #expect((bytes.task.error as? URLError)?.code == .cancelled)
    }

    @Test func anErrorBeforeTheResponseIsThrown() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let closedPort = refusing.port
        await #expect(throws: URLError.self) {
            _ = try await session.bytes(from: URL(string: "http://127.0.0.1:\(closedPort)/")!)
        }
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass.
func waitUntilAsync(timeout: Double, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
