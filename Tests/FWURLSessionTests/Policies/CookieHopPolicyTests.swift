import Foundation
@testable import FWURLSession
import Testing

// Policy 2 without a server: the Cookie field written from an in-memory storage, and Set-Cookie stored from
// every response (3xx and 401 too), each only when the configuration and the request allow it.
@Suite struct CookieHopPolicyTests {
    private static let url = "http://a.test/x"

    private static func configuration(cookies: Bool = true, stored: String? = "c=1") -> URLSessionConfiguration {
        let configuration = HopFixtures.configuration(cookies: cookies)
        if let stored {
            configuration.httpCookieStorage?.setCookies(fromSetCookieFields: [stored], for: URL(string: url)!,
                                                        mainDocumentURL: nil, policy: .always)
        }
        return configuration
    }

    @Test(arguments: [
        (true, true, nil, "c=1"), (false, true, nil, nil), (true, false, nil, nil),
        (true, true, "own=2", "own=2; c=1"), (false, true, "own=2", "own=2"),
    ] as [(Bool, Bool, String?, String?)])
    func prepareWritesTheStoredCookies(_ configured: Bool, _ requestAllows: Bool, _ own: String?,
                                       _ expected: String?) throws {
        var request = HopFixtures.request(Self.url, own.map { [("Cookie", $0)] } ?? [])
        request.httpShouldHandleCookies = requestAllows
        var hop = Hop(request: request)
        #expect(CookieHopPolicy.prepare(&hop, Self.configuration(cookies: configured)).summary == "continue")
        let outgoing = try #require(hop.outgoing)
        #expect(outgoing.value(forHTTPHeaderField: "Cookie") == expected)
        #expect(outgoing.value(forHTTPHeaderField: "User-Agent") != nil)
    }

    @Test func prepareWithoutARequestWritesNothing() {
        var hop = Hop(request: nil)
        #expect(CookieHopPolicy.prepare(&hop, Self.configuration()).summary == "continue")
        #expect(hop.outgoing == nil)
    }

    @Test(arguments: [(200, true), (302, true), (401, true), (304, true)])
    func observeStoresWhatAnyResponseSets(_ status: Int, _ stored: Bool) {
        let configuration = Self.configuration(stored: nil)
        let hop = Hop(request: HopFixtures.request(Self.url))
        CookieHopPolicy.observe(hop, HopFixtures.response(Self.url, status: status, [("Set-Cookie", "s=\(status)")]),
                                configuration)
        let field = configuration.httpCookieStorage?.cookieFieldValue(for: URL(string: Self.url)!)
        #expect(field == (stored ? "s=\(status)" : nil))
    }

    @Test(arguments: [
        (false, true, HTTPCookie.AcceptPolicy.always), (true, false, .always), (true, true, .never),
    ])
    func observeStoresNothingWhenCookiesAreOff(_ configured: Bool, _ requestAllows: Bool,
                                               _ policy: HTTPCookie.AcceptPolicy) {
        let configuration = Self.configuration(cookies: configured, stored: nil)
        configuration.httpCookieAcceptPolicy = policy
        var request = HopFixtures.request(Self.url)
        request.httpShouldHandleCookies = requestAllows
        CookieHopPolicy.observe(Hop(request: request), HopFixtures.response(Self.url, [("Set-Cookie", "s=1")]),
                                configuration)
        #expect(configuration.httpCookieStorage?.cookieFieldValue(for: URL(string: Self.url)!) == nil)
    }
}
