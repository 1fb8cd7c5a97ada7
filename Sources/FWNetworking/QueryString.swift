// QueryString: parameters flattened into field/value pairs, as AFNetworking does. A dictionary's entries
// come in order of their keys' text (`a[b]` for a nested dictionary), an array repeats its key with
// `[]`, a set repeats its key as is (its members in order of their text), nil and NSNull give a bare
// field, anything else a value. The pairs feed both query strings and multipart forms.

import Foundation

// MARK: - QueryString

/// Flattening parameters into pairs, and the text of a value.
enum QueryString {
    /// One flattened parameter: the field as written (`a[b][]`, not yet escaped) and its value.
    struct Pair {
        var field: String
        var value: Value

        /// `field=value` percent-escaped, or the bare field for an absent value.
        var percentEscaped: String {
            let field = QueryString.percentEscaped(field.utf8)
            switch value {
            case .absent: return field
            case .text(let text): return field + "=" + QueryString.percentEscaped(text.utf8)
            case .bytes(let bytes): return field + "=" + QueryString.percentEscaped(bytes)
            }
        }
    }

    /// A leaf value: none (nil, NSNull), text, or bytes (Data, escaped as they are).
    enum Value: Equatable {
        case absent
        case text(String)
        case bytes(Data)
    }

    /// The pairs of `dictionary`, nested collections flattened.
    static func pairs(_ dictionary: [AnyHashable: Any]) -> [Pair] {
        var pairs: [Pair] = []
        append(key: nil, value: dictionary, to: &pairs)
        return pairs
    }

    /// `value` as a dictionary when it is one (through any optional wrapping), else nil.
    static func dictionary(_ value: Any) -> [AnyHashable: Any]? {
        unwrapped(value) as? [AnyHashable: Any]
    }

    // MARK: Flattening

    private static func append(key: String?, value: Any, to pairs: inout [Pair]) {
        guard let value = unwrapped(value) else {
            pairs.append(Pair(field: key ?? "", value: .absent))
            return
        }
        if let dictionary = value as? [AnyHashable: Any] {
            for (nestedKey, nestedValue) in sortedByText(dictionary.map { ($0.key.base, $0.value) }) {
                let name = text(ofKey: nestedKey)
                append(key: key.map { "\($0)[\(name)]" } ?? name, value: nestedValue, to: &pairs)
            }
        } else if let array = value as? [Any] {
            for element in array { append(key: (key ?? "") + "[]", value: element, to: &pairs) }
        } else if let set = value as? Set<AnyHashable> {
            for (element, _) in sortedByText(set.map { ($0.base, ()) }) { append(key: key, value: element, to: &pairs) }
        } else {
            pairs.append(Pair(field: key ?? "", value: leaf(value)))
        }
    }

    /// Entries in order of their key's text, then of the key's type name (so that keys with equal text,
    /// such as `1` and `"1"`, keep one order from run to run although dictionaries do not).
    private static func sortedByText<V>(_ entries: [(Any, V)]) -> [(Any, V)] {
        entries.map { (sortKey: (text(ofKey: $0.0), "\(type(of: $0.0))"), entry: $0) }
            .sorted { $0.sortKey < $1.sortKey }
            .map(\.entry)
    }

    // MARK: Values

    /// The wrapped value of an optional (nested ones too), nil for `.none`, `value` itself otherwise.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// A leaf's value: NSNull is absent, Data stays bytes, the rest is text.
    static func leaf(_ value: Any) -> Value {
        if value is NSNull { return .absent }
        if let data = value as? Data { return .bytes(data) }
        return .text(text(of: value))
    }

    /// The text of a key: as for values, with Data read as UTF-8.
    private static func text(ofKey key: Any) -> String {
        if let data = key as? Data { return String(decoding: data, as: UTF8.self) }
        return text(of: key)
    }

    /// The text of a scalar, as AFNetworking's `description` gives it on Apple platforms: booleans as
    /// `1` and `0`, floating-point numbers without a fractional part as integers (`2`, not `2.0`), a URL
    /// as its absolute string, anything else as `String(describing:)`.
    static func text(of value: Any) -> String {
        switch value {
        case let string as String: return string
        case let bool as Bool where type(of: value) == Bool.self: return bool ? "1" : "0"
        case let integer as any BinaryInteger: return String(describing: integer)
        case let number as any BinaryFloatingPoint: return floatingPointText(number)
        case let number as NSNumber: return floatingPointText(number.doubleValue, else: number.description)
        case let url as URL: return url.absoluteString
        default: return String(describing: value)
        }
    }

    /// An integral finite value below 10^15 as an integer, else the number's own description.
    private static func floatingPointText<F: BinaryFloatingPoint>(_ value: F, else other: String? = nil) -> String {
        if value.isFinite, value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return other ?? String(describing: value)
    }
}
