import Foundation
import FWTransport
@testable import FWURLSession
import Testing

// How a URLRequest's URL becomes the transport's connection key and request target.
@Suite struct TransportRequestFromURLRequestTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var url: URL
        var scheme: String
        var host: String
        var port: Int
        var target: String
        var testDescription: String { url.absoluteString }
    }

    static let rows: [Row] = [
        Row(url: URL(string: "http://example.com")!, scheme: "http", host: "example.com", port: 80, target: "/"),
        Row(url: URL(string: "https://example.com/a/b?x=1&y=%20z")!, scheme: "https", host: "example.com",
            port: 443, target: "/a/b?x=1&y=%20z"),
        Row(url: URL(string: "HTTP://127.0.0.1:8080/p%2Fq")!, scheme: "http", host: "127.0.0.1", port: 8080,
            target: "/p%2Fq"),
        Row(url: URL(string: "http://[::1]:9000/x")!, scheme: "http", host: "::1", port: 9000, target: "/x"),
        Row(url: URL(string: "http://h.example/a#fragment")!, scheme: "http", host: "h.example", port: 80,
            target: "/a"),
        Row(url: URL(string: "http://h.example?q=1")!, scheme: "http", host: "h.example", port: 80, target: "/?q=1"),
        Row(url: URL(string: "b?c=d", relativeTo: URL(string: "https://h.example:8443/a/")!)!, scheme: "https",
            host: "h.example", port: 8443, target: "/a/b?c=d"),
    ]

    @Test(arguments: rows)
    func keyAndTarget(_ row: Row) throws {
        let request = try TransportRequest(URLRequest(url: row.url), configuration: .default, tracing: false)
        #expect(request.key == ConnectionKey(scheme: row.scheme, host: row.host, port: row.port))
        #expect(request.head.target == row.target)
    }

    @Test(arguments: [
        ("ftp://h.example/file", URLError.Code.unsupportedURL),
        ("http:///no-host", .badURL),
        ("http://h.example:0/", .badURL),
    ])
    func urlsTheEngineCannotCarry(_ text: String, _ code: URLError.Code) throws {
        let url = try #require(URL(string: text))
        let error = #expect(throws: URLError.self) {
            _ = try TransportRequest(URLRequest(url: url), configuration: .default, tracing: false)
        }
        #expect(error?.code == code)
    }

    @Test func aRequestWithoutURLIsUnsupported() {
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.url = nil
        let error = #expect(throws: URLError.self) {
            _ = try TransportRequest(request, configuration: .default, tracing: false)
        }
        #expect(error?.code == .unsupportedURL)
    }

    // MARK: The request's timeout

    /// How a row's request is made.
    enum TimeoutSource: Sendable {
        /// `URLRequest(url:)`: no timeout given.
        case none
        /// `URLRequest(url:cachePolicy:timeoutInterval:)`.
        case initialiser(TimeInterval)
        /// `request.timeoutInterval = value` after `URLRequest(url:)`.
        case assigned(TimeInterval)
    }

    struct TimeoutRow: Sendable, CustomTestStringConvertible {
        var session: TimeInterval
        var request: TimeoutSource
        var expected: Duration
        var testDescription: String { "session \(session), request \(request) -> \(expected)" }
    }

    // The more restrictive of the session's and the request's value, once the request gives one (a value of
    // 0 or less means none); a request that gives none takes the session's.
    static let timeoutRows: [TimeoutRow] = [
        TimeoutRow(session: 60, request: .none, expected: .seconds(60)),
        TimeoutRow(session: 120, request: .none, expected: .seconds(120)),
        TimeoutRow(session: 60, request: .initialiser(2), expected: .seconds(2)),
        TimeoutRow(session: 1, request: .initialiser(60), expected: .seconds(1)),
        TimeoutRow(session: 60, request: .assigned(5), expected: .seconds(5)),
        TimeoutRow(session: 1, request: .assigned(30), expected: .seconds(1)),
        TimeoutRow(session: 0, request: .assigned(5), expected: .seconds(5)),
        TimeoutRow(session: 5, request: .assigned(0), expected: .seconds(5)),
        // Fractions are kept to the nanosecond; no limit on either side, or one past `Int32.max` seconds,
        // is the unbounded timeout.
        TimeoutRow(session: 60, request: .assigned(0.25), expected: .milliseconds(250)),
        TimeoutRow(session: 1.000000001, request: .none, expected: .nanoseconds(1_000_000_001)),
        TimeoutRow(session: 0, request: .assigned(-1), expected: TransportRequest.unboundedTimeout),
        TimeoutRow(session: 0, request: .none, expected: TransportRequest.unboundedTimeout),
        TimeoutRow(session: 3e9, request: .none, expected: TransportRequest.unboundedTimeout),
    ]

    @Test(arguments: timeoutRows)
    func theMoreRestrictiveTimeoutApplies(_ row: TimeoutRow) throws {
        let url = try #require(URL(string: "http://example.com/"))
        var request = URLRequest(url: url)
        switch row.request {
        case .none: break
        case .initialiser(let value): request = URLRequest(url: url, cachePolicy: .useProtocolCachePolicy,
                                                            timeoutInterval: value)
        case .assigned(let value): request.timeoutInterval = value
        }
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = row.session
        let transportRequest = try TransportRequest(request, configuration: configuration, tracing: false)
        #expect(transportRequest.idleTimeout == row.expected)
    }
}
