// Case-insensitive lookup of header fields and of elements of comma-separated list values.

extension HTTPHeaders {
    // MARK: Lookup by name

    /// True when at least one field is named `name` (case-insensitive).
    public func contains(name: String) -> Bool {
        (0..<count).contains { nameMatches(at: $0, name) }
    }

    /// The value of the first field named `name` (case-insensitive), or nil.
    public func first(name: String) -> String? {
        guard let index = (0..<count).first(where: { nameMatches(at: $0, name) }) else { return nil }
        return Latin1.string(rawValue(at: index))
    }

    /// The values of every field named `name` (case-insensitive) joined with ", " in order, nil when none
    /// is: how URLSession's `value(forHTTPHeaderField:)` reads duplicated fields. No array is made.
    public func combinedValue(name: String) -> String? {
        var combined: String?
        for index in 0..<count where nameMatches(at: index, name) {
            let value = Latin1.string(rawValue(at: index))
            combined = combined.map { $0 + ", " + value } ?? value
        }
        return combined
    }

    /// The value of every field named `name` (case-insensitive), in order.
    public func values(name: String) -> [String] {
        (0..<count).filter { nameMatches(at: $0, name) }.map { Latin1.string(rawValue(at: $0)) }
    }

    // MARK: List values

    /// True when any field `name` has `token` among its comma-separated elements (case-insensitive,
    /// OWS trimmed), e.g. `containsToken("close", inField: "Connection")`.
    public func containsToken(_ token: String, inField name: String) -> Bool {
        let utf8 = token.utf8
        guard !utf8.isEmpty else { return false }
        var found = false
        forEachElement(inField: name) { element in
            if !found, element.count == utf8.count {
                found = element.elementsEqual(utf8) { ASCII.lowercased($0) == ASCII.lowercased($1) }
            }
        }
        return found
    }

    /// Calls `body` with every comma-separated element, OWS trimmed, of every field named `name`, in
    /// order. Empty elements are passed too (an empty value is one empty element).
    func forEachElement<Failure: Error>(
        inField name: String,
        _ body: (ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        for index in 0..<count where nameMatches(at: index, name) {
            let value = rawValue(at: index)
            var start = value.startIndex
            while let comma = value[start...].firstIndex(of: ASCII.comma) {
                try body(value[start..<comma].trimmingWhitespace())
                start = comma + 1
            }
            try body(value[start...].trimmingWhitespace())
        }
    }
}
