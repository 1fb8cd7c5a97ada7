import FWLoop
import Testing
import TestSupport
@testable import FWTransport

// The producers of one streamed body across attempts: the first made on demand, a resend's made when
// the retry is decided, and a resend's that is never used stopped when the request is released.
@Suite struct RequestBodyProducersTests {
    private static func stream(_ source: TestBodySource) -> TransportBodyStream {
        guard case .stream(let stream) = source.body(length: nil) else { preconditionFailure("a stream body") }
        return stream
    }

    @Test func theFirstAttemptMakesOneProducerAndALaterAttemptNeedsAResend() {
        let source = TestBodySource { TestBodyProducer(total: 1) }
        let producers = RequestBodyProducers(Self.stream(source))
        #expect(producers.producerForAttempt() === source.made.first)
        #expect(producers.producerForAttempt() == nil)
        #expect(source.makeCalls == 1)
    }

    @Test func aResendTakesTheProducerMadeWhenTheRetryWasDecided() throws {
        let group = try EventLoopGroup(loopCount: 1, namePrefix: "fw-test")
        defer { group.shutdown() }
        let source = TestBodySource { TestBodyProducer(total: 1) }
        let producers = RequestBodyProducers(Self.stream(source))
        _ = producers.producerForAttempt()
        #expect(producers.prepareResend(on: group.next()))
        #expect(source.makeCalls == 2)
        #expect(producers.producerForAttempt() === source.made.last)
        #expect(source.makeCalls == 2)
    }

    @Test func noResendWithoutANewProducer() throws {
        let group = try EventLoopGroup(loopCount: 1, namePrefix: "fw-test")
        defer { group.shutdown() }
        let source = TestBodySource(available: 1) { TestBodyProducer(total: 1) }
        let producers = RequestBodyProducers(Self.stream(source))
        _ = producers.producerForAttempt()
        #expect(!producers.prepareResend(on: group.next()))
    }

    @Test func aResendProducerNeverUsedIsStoppedOnItsLoopWhenReleased() throws {
        let group = try EventLoopGroup(loopCount: 1, namePrefix: "fw-test")
        defer { group.shutdown() }
        let source = TestBodySource { TestBodyProducer(total: 1) }
        var producers: RequestBodyProducers? = RequestBodyProducers(Self.stream(source))
        #expect(producers?.prepareResend(on: group.next()) == true)
        let spare = try #require(source.made.first)
        #expect(spare.record.stops == 0)
        producers = nil
        #expect(waitUntil(timeout: 2) { spare.record.stops == 1 })
    }
}
