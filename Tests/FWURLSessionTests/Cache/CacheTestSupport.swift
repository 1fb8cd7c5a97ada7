// CacheTestSupport.swift
//
// Shared fixtures of the cache tests: a fixed epoch with HTTP-dates relative to it (made by DateFormatter,
// an oracle independent of HTTPDate), requests and responses from field lists, cached responses with
// exchange times, a manual clock, and temporary directories.

import Foundation
@testable import FWURLSession
import TestSupport

// MARK: - Fixtures

/// Requests, responses and dates for cache tests.
enum CacheFixtures {
    /// Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example date).
    static let epoch = Date(timeIntervalSince1970: 784_111_777)
    /// The URL most tests use.
    static let url = "https://example.com/a"

    /// The date `offset` seconds after the epoch.
    static func date(_ offset: TimeInterval) -> Date {
        epoch.addingTimeInterval(offset)
    }

    /// The IMF-fixdate of `offset` seconds after the epoch.
    static func httpDate(_ offset: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date(offset))
    }

    /// A request for the usual URL with `method`, `fields` and `policy`.
    static func request(method: String = "GET", _ fields: [(String, String)] = [],
                        policy: URLRequest.CachePolicy = .useProtocolCachePolicy) -> URLRequest {
        request(url, method: method, fields, policy: policy)
    }

    /// A request for `url` with `method`, `fields` and `policy`.
    static func request(_ url: String, method: String = "GET", _ fields: [(String, String)] = [],
                        policy: URLRequest.CachePolicy = .useProtocolCachePolicy) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!, cachePolicy: policy)
        request.httpMethod = method
        for (name, value) in fields {
            request.addValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// A response from the wire for the usual URL with `status` and `fields` in order.
    static func response(status: Int = 200, _ fields: [(String, String)] = []) -> HTTPURLResponse {
        response(url, status: status, fields)
    }

    /// A response from the wire for `url` with `status` and `fields` in order.
    static func response(_ url: String, status: Int = 200, _ fields: [(String, String)] = []) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1",
                        orderedHeaderFields: fields.map { (name: $0.0, value: $0.1) })
    }

    /// A cached response as the cache keeps it: exchanged at `requestOffset`/`responseOffset`, stored then.
    static func cached(_ response: URLResponse, data: Data = Data("body".utf8), requestOffset: TimeInterval = 0,
                       responseOffset: TimeInterval = 0, varyingFields: [VaryingField]? = []) -> CachedURLResponse {
        let info = CacheEntryInfo(requestDate: date(requestOffset), responseDate: date(responseOffset),
                                  storedDate: date(responseOffset), varyingFields: varyingFields)
        return CachedURLResponse(response: response, data: data, userInfo: nil, storagePolicy: .allowed,
                                 cacheInfo: info)
    }
}

// MARK: - ManualCacheClock

/// A clock that only moves when a test moves it.
final class ManualCacheClock: Sendable {
    private let current: LockedBox<Date>

    /// A clock showing `date`.
    init(_ date: Date = CacheFixtures.epoch) {
        current = LockedBox(date)
    }

    /// The clock as the cache takes it.
    var clock: CacheClock {
        let current = current
        return CacheClock { current.withLock { $0 } }
    }

    /// Moves the clock forward by `seconds`.
    func advance(by seconds: TimeInterval) {
        current.withLock { $0.addTimeInterval(seconds) }
    }
}

// MARK: - TemporaryDirectory

extension TemporaryDirectory {
    /// The entry files in the directory (`*.fwcache`), sorted.
    var entryFiles: [String] {
        fileNames.filter { $0.hasSuffix(".fwcache") }
    }
}
