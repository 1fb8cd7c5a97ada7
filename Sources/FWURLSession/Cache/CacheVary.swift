// CacheVary.swift
//
// Vary (RFC 9111 §4.1): a stored response may only answer a request whose header fields named in the
// response's Vary have the same values as those of the request that stored it. The cache keeps one
// response per URL and records, with it, the value (or absence) of every field its Vary names; a lookup
// compares them. `Vary: *` never matches. Values are compared after normalising list syntax: members
// trimmed of whitespace and joined with "," ("gzip,  br" matches "gzip,br"); field names are compared
// without regard to case.

import Foundation

// MARK: - VaryingField

/// A request header field a stored response varies on, with the value the storing request had.
struct VaryingField: Codable, Equatable, Hashable, Sendable {
    /// The field name, lower-cased.
    var name: String
    /// The normalised value the request had; nil when the request did not have the field.
    var value: String?
}

// MARK: - CacheVary

/// Selecting stored responses by their Vary field.
enum CacheVary {
    /// The field names `response`'s Vary lists, lower-cased and without duplicates; nil for `Vary: *`.
    static func fieldNames(of response: HTTPURLResponse) -> [String]? {
        var names: [String] = []
        for member in CacheControl.members(of: response.value(forHTTPHeaderField: "Vary") ?? "") {
            let name = member.name.lowercased()
            if name == "*" { return nil }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The fields `request` has for what `response` varies on; nil when the response varies on `*`.
    static func varyingFields(of request: URLRequest, for response: HTTPURLResponse) -> [VaryingField]? {
        fieldNames(of: response).map { names in
            names.map { VaryingField(name: $0, value: normalized(request.value(forHTTPHeaderField: $0))) }
        }
    }

    /// Whether `request` may be answered by `response`, stored with `storedFields` (nil when the response
    /// was not stored by this cache: its Vary cannot be checked and only `*` refuses it).
    static func matches(_ request: URLRequest, response: HTTPURLResponse, storedFields: [VaryingField]?) -> Bool {
        guard fieldNames(of: response) != nil else { return false }
        guard let storedFields else { return true }
        return storedFields.allSatisfy { normalized(request.value(forHTTPHeaderField: $0.name)) == $0.value }
    }

    /// A field value with its list members trimmed and joined with ","; nil stays nil.
    static func normalized(_ value: String?) -> String? {
        value.map { $0.split(separator: ",").map { $0.trimmingHTTPWhitespace() }.joined(separator: ",") }
    }
}
