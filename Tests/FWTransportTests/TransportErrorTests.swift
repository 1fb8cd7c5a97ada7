// TransportError: a connect that failed for want of a route is "no route", any other connect failure is
// "cannot connect to host".

import FWLoop
import Glibc
import Testing
@testable import FWTransport

@Suite struct TransportErrorTests {
    @Test(arguments: [
        (ENETUNREACH, true), (EHOSTUNREACH, true), (ECONNREFUSED, false), (ETIMEDOUT, false), (EACCES, false),
    ])
    func connectFailures(errno: Int32, isNoRoute: Bool) {
        let error = TransportError.cannotConnect(IOError(errno: errno, call: "connect"))
        #expect(error.isNoRoute == isNoRoute)
        #expect(error.isCannotConnectToHost == !isNoRoute)
        #expect((error.underlying as? IOError)?.errno == errno)
    }
}
