// HTTPURLResponse+CacheFields.swift
//
// The response fields the cache reads one value of. Date, Expires and Last-Modified are singletons whose
// values contain commas ("Sun, 06 Nov 1994 ..."), so the joined value `value(forHTTPHeaderField:)` returns
// for repeated fields cannot be split again: the first field line counts (RFC 9111 §4.2.1 allows using the
// first occurrence).

import Foundation

extension HTTPURLResponse {
    // MARK: Singleton fields

    /// The value of the first field named `name` (case-insensitive), trimmed; nil when there is none.
    func firstValue(forHTTPHeaderField name: String) -> String? {
        orderedHeaderFields.first { $0.name.isEqualIgnoringASCIICase(name) }?.value.trimmingHTTPWhitespace()
    }

    /// The first Date field as a date; nil when absent or not an HTTP-date.
    var dateFieldValue: Date? {
        firstValue(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse)
    }

    /// The first Last-Modified field as a date; nil when absent or not an HTTP-date.
    var lastModifiedFieldValue: Date? {
        firstValue(forHTTPHeaderField: "Last-Modified").flatMap(HTTPDate.parse)
    }
}
