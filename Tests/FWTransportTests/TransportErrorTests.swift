// TransportError: a connect that failed for want of a route is "no route", any other connect failure is
// "cannot connect to host"; a lookup that failed for now is told from one that found nothing.

import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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

    @Test(arguments: [
        (ResolverError.temporaryFailure("example.org") as ResolverError?, true),
        (.hostNotFound("example.org"), false),
        (nil, false),
    ])
    func lookupFailures(_ underlying: ResolverError?, isTemporary: Bool) {
        let error = TransportError.cannotFindHost("lookup failed", underlying: underlying)
        #expect(error.isTemporaryLookupFailure == isTemporary)
        #expect(error.isCannotFindHost)
        #expect(!error.isNoRoute)
    }
}
