import Foundation
import FWLoop
import FWTransport
@testable import FWURLSession
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

// URLError+Transport: the code each transport failure maps to — a connect without a route is
// `notConnectedToInternet` (-1009), any other failed connect `cannotConnectToHost` (-1004) — with the
// failing URL and the underlying error kept.
@Suite struct URLErrorTransportTests {
    static let cases: [(TransportError, URLError.Code, Int)] = [
        (.cannotConnect(IOError(errno: ENETUNREACH, call: "connect")), .notConnectedToInternet, -1009),
        (.cannotConnect(IOError(errno: EHOSTUNREACH, call: "connect")), .notConnectedToInternet, -1009),
        (.cannotConnect(IOError(errno: ECONNREFUSED, call: "connect")), .cannotConnectToHost, -1004),
        (.cannotFindHost("no such host", underlying: nil), .cannotFindHost, -1003),
        (.timedOut("slow"), .timedOut, -1001),
        (.connectionLost("reset"), .networkConnectionLost, -1005),
        (.cancelled, .cancelled, -999),
        (.shutDown, .cancelled, -999),
    ]

    @Test(arguments: cases)
    func transportFailures(_ error: TransportError, _ code: URLError.Code, _ rawValue: Int) throws {
        let url = try #require(URL(string: "http://example.test/"))
        let mapped = URLError(error, url: url)
        #expect(mapped.code == code)
        #expect(mapped.code.rawValue == rawValue)
        #expect(mapped.failingURL == url)
        #expect(mapped.userInfo[NSUnderlyingErrorKey] != nil)
    }
}
