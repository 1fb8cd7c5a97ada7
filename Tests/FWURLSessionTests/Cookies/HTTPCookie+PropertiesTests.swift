// HTTPCookie+PropertiesTests.swift
//
// `init?(properties:)` with FoundationNetworking's rules, one row per rule, and the round trip through
// `properties`.

import Foundation
@testable import FWURLSession
import Testing

@Suite struct HTTPCookiePropertiesTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static var base: [HTTPCookiePropertyKey: Any] { [.name: "n", .value: "v", .path: "/", .domain: "example.com"] }

    /// A property value for a table row (rows must be Sendable, `Any` is not).
    enum Input: Sendable {
        case string(String), bool(Bool), int(Int), double(Double), nsBool(Bool), date(TimeInterval)
        case url(String), numbers([Int]), ints([Int]), policy(HTTPCookieStringPolicy)

        var value: Any {
            switch self {
            case .string(let string): string
            case .bool(let bool): bool
            case .int(let int): int
            case .double(let double): double
            case .nsBool(let bool): NSNumber(value: bool)
            case .date(let seconds): Date(timeIntervalSince1970: seconds)
            case .url(let text): URL(string: text) as Any
            case .numbers(let numbers): numbers.map { NSNumber(value: $0) }
            case .ints(let ints): ints
            case .policy(let policy): policy
            }
        }
    }

    func make(_ extra: [HTTPCookiePropertyKey: Any], removing: [HTTPCookiePropertyKey] = []) -> HTTPCookie.Fields? {
        var properties = Self.base.merging(extra) { $1 }
        for key in removing { properties[key] = nil }
        return HTTPCookie.Fields(properties: properties, now: Self.now)
    }

    // MARK: Required keys

    @Test func theMinimalCookie() throws {
        let fields = try #require(make([:]))
        #expect(fields.name == "n")
        #expect(fields.value == "v")
        #expect(fields.path == "/")
        #expect(fields.domain == "example.com")
        #expect(fields.expiresDate == nil)
        #expect(fields.isSessionOnly)
        #expect(!fields.isSecure)
        #expect(!fields.isHTTPOnly)
        #expect(fields.version == 0)
        #expect(fields.portList == nil)
        #expect(fields.sameSitePolicy == nil)
        #expect(fields.creationDate == Self.now)
    }

    @Test(arguments: [HTTPCookiePropertyKey.name, .value, .path, .domain])
    func aRequiredKeyMissingGivesNil(_ key: HTTPCookiePropertyKey) {
        #expect(make([:], removing: [key]) == nil, "\(key.rawValue)")
    }

    @Test(arguments: [HTTPCookiePropertyKey.name, .value, .path, .domain])
    func aRequiredKeyOfTheWrongTypeGivesNil(_ key: HTTPCookiePropertyKey) {
        #expect(make([key: 42]) == nil, "\(key.rawValue)")
    }

    @Test func substringsAreStrings() {
        #expect(make([.name: "name"[...]])?.name == "name")
    }

    @Test(arguments: [Input.url("http://Origin.Test/x"), .string("http://Origin.Test/x")])
    func theOriginURLGivesTheDomain(_ origin: Input) throws {
        let fields = try #require(make([.originURL: origin.value], removing: [.domain]))
        #expect(fields.domain == "origin.test")
        #expect(fields.originURL == URL(string: "http://Origin.Test/x"))
    }

    @Test func theDomainIsLowerCasedAndWinsOverTheOrigin() {
        #expect(make([.domain: ".EXAMPLE.org", .originURL: URL(string: "http://o.test/") as Any])?.domain
            == ".example.org")
    }

    // MARK: Flags

    @Test(arguments: [
        (Input.string("TRUE"), true), (.string("FALSE"), true),   // Foundation: any non-empty string is secure
        (.string(""), false), (.bool(true), true), (.bool(false), false), (.nsBool(true), true),
    ])
    func theSecureRule(_ value: Input, _ secure: Bool) {
        #expect(make([.secure: value.value])?.isSecure == secure)
    }

    @Test(arguments: [(Input.string("TRUE"), true), (.string("true"), true), (.string("FALSE"), false),
                      (.bool(true), true)])
    func discardAndHTTPOnlyReadTRUE(_ value: Input, _ flag: Bool) {
        let expires = Self.now.addingTimeInterval(60)
        #expect(make([.discard: value.value, .expires: expires])?.isSessionOnly == flag)
        #expect(make([.httpOnly: value.value])?.isHTTPOnly == flag)
    }

    // MARK: Version, ports, expiry

    @Test(arguments: [(Input.string("1"), 1), (.int(1), 1), (.string("0"), 0), (.string("2"), 0), (.string("x"), 0)])
    func theVersionIsOneOrZero(_ value: Input, _ version: Int) {
        #expect(make([.version: value.value])?.version == version)
    }

    @Test(arguments: [
        (Input.string("80,8080"), "1", [80, 8080]), (.string("80,8080"), "0", [80]), (.string(" 80 , x"), "1", [80]),
        (.numbers([443]), "1", [443]), (.ints([81, 82]), "1", [81, 82]), (.string(""), "1", nil),
    ] as [(Input, String, [Int]?)])
    func portsByVersion(_ value: Input, _ version: String, _ ports: [Int]?) {
        #expect(make([.port: value.value, .version: version])?.portList == ports)
    }

    @Test func maximumAgeWinsForVersionOneCookies() throws {
        let fields = try #require(make([.version: "1", .maximumAge: "60", .expires: Date.distantFuture]))
        #expect(fields.expiresDate == Self.now.addingTimeInterval(60))
        #expect(!fields.isSessionOnly)
    }

    @Test func maximumAgeHidesExpiresForVersionZeroCookies() throws {
        let fields = try #require(make([.maximumAge: 60, .expires: Date.distantFuture]))
        #expect(fields.expiresDate == nil)
        #expect(fields.isSessionOnly)
    }

    @Test func aVersionOneCookieWithoutMaximumAgeIsSessionOnly() {
        #expect(make([.version: "1", .expires: Date.distantFuture])?.isSessionOnly == true)
    }

    @Test(arguments: [
        (Input.date(2_000_000_000), 2_000_000_000.0),
        (.string("Sun, 06 Nov 1994 08:49:37 GMT"), CookieDateTests.example),
        (.string("Sunday, 06-Nov-94 08:49:37 GMT"), CookieDateTests.example),
    ] as [(Input, TimeInterval)])
    func expiresIsADateOrACookieDate(_ value: Input, _ seconds: TimeInterval) throws {
        let fields = try #require(make([.expires: value.value]))
        #expect(fields.expiresDate?.timeIntervalSince1970 == seconds)
        #expect(!fields.isSessionOnly)
    }

    @Test func anUnreadableExpiresMeansSessionOnly() {
        #expect(make([.expires: "soon"])?.expiresDate == nil)
        #expect(make([.expires: "soon"])?.isSessionOnly == true)
    }

    // MARK: Other keys

    @Test(arguments: [
        (Input.policy(.sameSiteLax), HTTPCookieStringPolicy.sameSiteLax),
        (.string("Strict"), .sameSiteStrict), (.string("none"), .sameSiteNone), (.string("bogus"), nil),
    ] as [(Input, HTTPCookieStringPolicy?)])
    func sameSiteIsAPolicyOrItsString(_ value: Input, _ policy: HTTPCookieStringPolicy?) {
        #expect(make([.sameSitePolicy: value.value])?.sameSitePolicy == policy)
    }

    @Test func commentAndCommentURL() {
        let fields = make([.comment: "why", .commentURL: "http://c.test/why"])
        #expect(fields?.comment == "why")
        #expect(fields?.commentURL == URL(string: "http://c.test/why"))
        #expect(make([.commentURL: URL(string: "http://c.test/") as Any])?.commentURL == URL(string: "http://c.test/"))
    }

    @Test(arguments: [(Input.double(5), 5.0), (.date(978_307_207), 7.0)])
    func theCreationDateIsKept(_ value: Input, _ seconds: TimeInterval) {
        #expect(make([.created: value.value])?.creationDate == Date(timeIntervalSinceReferenceDate: seconds))
    }

    // MARK: Round trip

    @Test func propertiesMakeAnEqualCookie() throws {
        let original = try #require(HTTPCookie(properties: Self.base.merging([
            .secure: "TRUE", .httpOnly: "TRUE", .version: "1", .maximumAge: "600", .port: "80,81",
            .comment: "c", .commentURL: "http://c.test/", .sameSitePolicy: "lax",
            .originURL: URL(string: "http://example.com/") as Any,
        ]) { $1 }))
        let properties = try #require(original.properties)
        let copy = try #require(HTTPCookie(properties: properties))
        #expect(copy == original)
        #expect(copy.creationDate == original.creationDate)
        #expect(properties[.name] as? String == "n")
        #expect(properties[.secure] as? Bool == true)
        #expect(properties[.version] as? Int == 1)
        #expect(properties[.sameSitePolicy] as? String == "lax")
        #expect(properties[HTTPCookiePropertyKey("HttpOnly")] as? String == "TRUE")
        #expect(properties[.port] as? [NSNumber] == [80, 81])
        #expect(properties[.expires] is Date)
    }

    @Test func aSessionCookieRoundTrips() throws {
        let original = try #require(HTTPCookie(properties: Self.base))
        let properties = try #require(original.properties)
        let copy = try #require(HTTPCookie(properties: properties))
        #expect(copy == original)
        #expect(copy.isSessionOnly)
        #expect(original.properties?[.expires] == nil)
    }
}
