// WebSocketHandshakeError: local and remote errors are told apart; members are distinct and described.

import FWWire
import Testing

@Suite struct WebSocketHandshakeErrorTests {
    @Test func localAndRemoteErrorsAreTold() {
        let local: [WebSocketHandshakeError] = [.invalidKey, .invalidProtocol, .invalidDeflateOffer]
        let remote: [WebSocketHandshakeError] = [
            .unexpectedStatus, .missingUpgrade, .missingConnectionUpgrade, .invalidAccept, .unexpectedProtocol,
            .malformedExtensions, .unexpectedExtension, .invalidDeflateParameters,
        ]
        #expect(local.map(\.isLocal) == [true, true, true])
        #expect(remote.filter(\.isLocal).isEmpty)
        #expect(Set(local + remote).count == local.count + remote.count)
        #expect(Set((local + remote).map(\.description)).count == local.count + remote.count)
    }
}
