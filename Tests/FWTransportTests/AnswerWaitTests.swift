// HTTP1Connection.awaitsAnswer(after:): which of the connection machine's actions start or end the wait for the
// peer's answer that a hosted loop polls for.

@testable import FWTransport
import Testing

@Suite struct AnswerWaitTests {
    @Test func aConnectionMadeOrEndedAwaitsNoAnswer() {
        // Made: a request it was opened for may have been cancelled meanwhile; it then idles, awaiting nothing.
        #expect(HTTP1Connection.awaitsAnswer(after: .reportEstablished) == false)
        #expect(HTTP1Connection.awaitsAnswer(after: .closeIdle) == false)
        #expect(HTTP1Connection.awaitsAnswer(after: .reportConnectFailed(.cancelled, discardTLSSession: false))
                == false)
    }

    @Test func stepsOfTheEstablishmentLeaveTheWaitAsItWas() {
        #expect(HTTP1Connection.awaitsAnswer(after: .startTLS) == nil)
        #expect(HTTP1Connection.awaitsAnswer(after: .askServerTrust) == nil)
        #expect(HTTP1Connection.awaitsAnswer(after: .none) == nil)
    }
}
