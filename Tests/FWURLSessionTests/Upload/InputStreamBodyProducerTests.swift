import Foundation
@testable import FWURLSession
import FWTransport
import Testing
import TestSupport

// InputStreamBodyProducer: pieces from a stream, one-shot bodies, new streams from a provider, read
// errors, and closing the stream.
@Suite struct InputStreamBodyProducerTests {
    /// A stream that serves scripted reads (an empty read fails) and counts opens and closes.
    private final class ScriptedInputStream: InputStream {
        private let lock = NSLock()
        private var reads: [[UInt8]]
        private var status = Stream.Status.notOpen
        private var counts = (opens: 0, closes: 0)

        init(reads: [[UInt8]]) {
            self.reads = reads
            super.init(data: Data())
        }

        var opens: Int { lock.withLock { counts.opens } }
        var closes: Int { lock.withLock { counts.closes } }

        override func open() {
            lock.withLock {
                status = .open
                counts.opens += 1
            }
        }

        override func close() {
            lock.withLock {
                status = .closed
                counts.closes += 1
            }
        }

        override var streamStatus: Stream.Status { lock.withLock { status } }
        override var hasBytesAvailable: Bool { lock.withLock { !reads.isEmpty } }
        override var streamError: (any Error)? { nil }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
            lock.withLock {
                guard !reads.isEmpty else { return 0 }
                let next = reads.removeFirst()
                guard !next.isEmpty else { return -1 }
                let count = min(maxLength, next.count)
                next.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: count) }
                return count
            }
        }
    }

    /// Counts how often a provider was asked, and answers from another thread.
    private final class Provider: Sendable {
        private let asked = LockedBox(0)
        private let contents: [UInt8]?

        init(contents: [UInt8]?) {
            self.contents = contents
        }

        var askCount: Int { asked.withLock { $0 } }

        var provide: InputStreamBodyProducer.StreamProvider {
            { [asked, contents] answer in
                asked.withLock { $0 += 1 }
                DispatchQueue.global().async { answer(contents.map { InputStream(data: Data($0)) }) }
            }
        }
    }

    @Test func readsAStreamInPiecesThenFinishes() {
        let contents = uploadPattern(100_000)
        let producer = InputStreamBodyProducer(stream: InputStream(data: Data(contents)))
        defer { producer.stop() }
        let drained = ProducerDriver(producer: producer).drain()
        #expect(drained.ending == .finish)
        #expect(drained.pieces == [65_536, 34_464])
        #expect(drained.bytes == contents)
    }

    @Test func aStreamBodyWithoutAProviderIsProducedOnce() throws {
        let stream = InputStreamBodyProducer.bodyStream(InputStream(data: Data([1, 2, 3])), length: 3)
        #expect(stream.length == 3)
        let first = try #require(stream.makeProducer())
        #expect(ProducerDriver(producer: first).drain().bytes == [1, 2, 3])
        first.stop()
        #expect(stream.makeProducer() == nil)
    }

    @Test func aResendAsksTheProviderForANewStream() throws {
        let provider = Provider(contents: [7, 8, 9])
        let stream = InputStreamBodyProducer.bodyStream(InputStream(data: Data([1, 2, 3])), length: nil,
                                                        newStream: provider.provide)
        let first = try #require(stream.makeProducer())
        #expect(ProducerDriver(producer: first).drain().bytes == [1, 2, 3])
        first.stop()
        #expect(provider.askCount == 0)
        let second = try #require(stream.makeProducer())
        #expect(provider.askCount == 0, "the provider is asked when the first piece is wanted")
        let drained = ProducerDriver(producer: second).drain()
        second.stop()
        #expect(drained.bytes == [7, 8, 9])
        #expect(drained.ending == .finish)
        #expect(provider.askCount == 1)
    }

    @Test func withoutAFirstStreamEveryAttemptAsksTheProvider() throws {
        let provider = Provider(contents: [4, 5])
        let stream = InputStreamBodyProducer.bodyStream(nil, length: 2, newStream: provider.provide)
        for attempt in 1...2 {
            let producer = try #require(stream.makeProducer())
            #expect(ProducerDriver(producer: producer).drain().bytes == [4, 5])
            producer.stop()
            #expect(provider.askCount == attempt)
        }
    }

    @Test func aProviderWithoutAStreamFailsTheBody() {
        let producer = InputStreamBodyProducer(provider: Provider(contents: nil).provide)
        defer { producer.stop() }
        guard case .fail(let reason) = ProducerDriver(producer: producer).drain().ending else {
            Issue.record("expected a failure")
            return
        }
        #expect(reason.contains("no body stream"))
    }

    @Test func aReadErrorFailsTheBody() {
        let stream = ScriptedInputStream(reads: [[1, 2], []])
        let producer = InputStreamBodyProducer(stream: stream)
        defer { producer.stop() }
        let drained = ProducerDriver(producer: producer).drain()
        #expect(drained.bytes == [1, 2])
        guard case .fail = drained.ending else {
            Issue.record("expected a failure, got \(drained.ending)")
            return
        }
    }

    @Test func stopClosesTheStreamOnceAndNothingIsAnsweredAfterIt() {
        let stream = ScriptedInputStream(reads: [[1], [2], [3]])
        let producer = InputStreamBodyProducer(stream: stream)
        let driver = ProducerDriver(producer: producer)
        guard case .bytes = driver.next() else {
            Issue.record("expected a piece")
            return
        }
        #expect(stream.opens == 1)
        producer.stop()
        #expect(waitUntil(timeout: 2) { stream.closes == 1 })
        #expect(driver.next(timeout: 0.2) == nil)
        #expect(stream.closes == 1)
    }

    @Test func aStreamIsUploadedThroughTheTransport() throws {
        let contents = uploadPattern(150_000)
        let server = try countingUploadServer()
        defer { server.stop() }
        let client = try UploadTransport()
        defer { client.close() }

        let body = InputStreamBodyProducer.bodyStream(InputStream(data: Data(contents)), length: 150_000)
        #expect(try client.upload(.stream(body), port: server.port)?.get() == "150000")
        #expect(server.requests.first?.body == contents)
    }
}
