// The query string helpers the port makes public on HTTPRequestSerializer.

import Foundation

// MARK: - Query strings

extension HTTPRequestSerializer {
    /// `string` percent-escaped for a query field or value: the unreserved characters, "/" and "?" stay,
    /// every other byte of its UTF-8 form becomes %XX (see `QueryString+PercentEscaping.swift`).
    public static func percentEscapedString(from string: String) -> String {
        QueryString.percentEscaped(string.utf8)
    }

    /// The query string of `parameters`: escaped `field=value` pairs joined by `&`, keys sorted by their
    /// text, nested dictionaries as `a[b]=c`, arrays as `a[]=1&a[]=2`, sets as `a=1&a=2`, nil and NSNull
    /// as a bare field. Booleans read `1`/`0`; Data values are escaped byte for byte.
    public static func queryString(from parameters: [AnyHashable: Any]) -> String {
        QueryString.pairs(parameters).map(\.percentEscaped).joined(separator: "&")
    }
}
