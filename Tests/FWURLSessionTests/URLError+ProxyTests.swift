import Foundation
import FWTransport
@testable import FWURLSession
import Testing

// The URLError of each way a proxy can fail (the other transport failures are mapped by the rows of
// URLError+TLSTests and the session tests).
@Suite struct URLErrorProxyTests {
    @Test(arguments: [
        (ProxyError.authenticationRequired("who are you"), URLError.Code.userAuthenticationRequired),
        (.refused("403 Forbidden"), .cannotConnectToHost),
        (.malformedReply("not SOCKS"), .badServerResponse),
    ])
    func proxyFailures(_ failure: ProxyError, _ code: URLError.Code) {
        let error = URLError(TransportError.proxyFailed(failure), url: URL(string: "https://example.org/"))
        #expect(error.code == code)
        #expect(error.localizedDescription == "proxy: \(failure)")
        #expect(error.userInfo[NSUnderlyingErrorKey] as? ProxyError == failure)
    }
}
