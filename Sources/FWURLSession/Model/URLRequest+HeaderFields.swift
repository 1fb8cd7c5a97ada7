// URLRequest+HeaderFields.swift
//
// Header fields of a request, kept as an ordered list so the request can be written in the order the
// caller set its fields, with the caller's spelling of each name. Each entry also remembers the key
// FoundationNetworking would report for it in `allHTTPHeaderFields`: `setValue` and `addValue` report the
// name `capitalized` ("content-type" -> "Content-Type"), the `allHTTPHeaderFields` setter reports names as
// given. Lookups are case-insensitive. Values are stored as given, however they are set: one with CR, LF
// or NUL cannot go on the wire, and the task that sends it fails with `badURL` before a byte is written
// (FoundationNetworking drops such a value from `setValue` and `addValue` silently; we refuse it the same
// way everywhere).

import Foundation

extension URLRequest {
    // MARK: Storage

    /// One header field of a request.
    struct HeaderField: Sendable {
        /// The name as the caller spelt it; this is what goes on the wire.
        var name: String
        /// The key `allHTTPHeaderFields` reports for this field.
        var key: String
        /// The field value.
        var value: String
    }

    /// The header fields in the order they were set, names spelt as the caller gave them, for writing the
    /// request head. Empty when no field was set.
    var orderedHeaderFields: [(name: String, value: String)] {
        (headerFields ?? []).map { (name: $0.name, value: $0.value) }
    }

    // MARK: Public API

    /// A dictionary of all the HTTP header fields of the receiver; `nil` until a field is set.
    ///
    /// Assigning a dictionary replaces every field; its fields are kept sorted by name (case-insensitively)
    /// so that the order they are written in does not depend on dictionary order.
    public var allHTTPHeaderFields: [String: String]? {
        get {
            headerFields.map { fields in
                var dictionary: [String: String] = [:]
                for field in fields {
                    // Lines of one name (`fwAppendHeaderFieldLine`) read as one field, as `addValue` joins them.
                    dictionary[field.key] = dictionary[field.key].map { $0 + "," + field.value } ?? field.value
                }
                return dictionary
            }
        }
        set {
            headerFields = newValue.map { dictionary in
                dictionary
                    .sorted { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }
                    .map { HeaderField(name: $0.key, key: $0.key, value: $0.value) }
            }
        }
    }

    /// The value of the header field named `field` (case-insensitive), or `nil` if it is not set.
    public func value(forHTTPHeaderField field: String) -> String? {
        headerFields?.first { $0.name.isEqualIgnoringASCIICase(field) }?.value
    }

    /// Sets the header field named `field` to `value`, replacing any field with that name whatever its
    /// case (the field keeps its position); a `nil` value removes the field. A value with CR, LF or NUL is
    /// stored, and the task that sends it fails with `URLError.badURL` before a byte is written.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        var fields = headerFields ?? []
        let position = fields.firstIndex { $0.name.isEqualIgnoringASCIICase(field) }
        fields.removeAll { $0.name.isEqualIgnoringASCIICase(field) }
        if let value {
            let replacement = HeaderField(name: field, key: field.capitalized, value: value)
            fields.insert(replacement, at: position ?? fields.endIndex)
        }
        headerFields = fields
    }

    /// Appends `value` to the header field named `field` (case-insensitive), joined with `","`, or adds
    /// the field when it is not set yet. A value with CR, LF or NUL is refused when the request is sent,
    /// as with `setValue`.
    public mutating func addValue(_ value: String, forHTTPHeaderField field: String) {
        var fields = headerFields ?? []
        if let index = fields.firstIndex(where: { $0.name.isEqualIgnoringASCIICase(field) }) {
            fields[index].value += "," + value
        } else {
            fields.append(HeaderField(name: field, key: field.capitalized, value: value))
        }
        headerFields = fields
    }

    /// FWNetworking addition: appends a field line named `field` with `value` even when a field with that
    /// name is set already, so that the request carries it on a line of its own (in the order and with the
    /// name's case as given), where `addValue` joins the values into one line. `value(forHTTPHeaderField:)`
    /// reports the first line's value, `allHTTPHeaderFields` the lines' values joined with `","`. A value with CR, LF or NUL is refused when
    /// the request is sent, as with `setValue`.
    public mutating func fwAppendHeaderFieldLine(_ value: String, forHTTPHeaderField field: String) {
        var fields = headerFields ?? []
        fields.append(HeaderField(name: field, key: field.capitalized, value: value))
        headerFields = fields
    }

    /// Appends a field the session itself adds (a default, a configured field), without the capitalisation
    /// and checks `setValue` makes: its name is reported as given.
    mutating func appendField(_ name: String, _ value: String) {
        // Taken out while it grows, so that the append happens in place instead of copying the list.
        var fields = headerFields ?? []
        headerFields = nil
        fields.append(HeaderField(name: name, key: name, value: value))
        headerFields = fields
    }

    /// Makes room for `count` more fields in one allocation (a request copied from another gets a list of
    /// its own here, instead of at its first change).
    mutating func reserveFieldCapacity(adding count: Int) {
        var fields = headerFields ?? []
        headerFields = nil
        fields.reserveCapacity(fields.count + count)
        headerFields = fields
    }
}
