// Case-insensitive lookup of header fields and of elements of comma-separated list values.

extension HTTPHeaders {
    // MARK: Lookup by name

    /// True when at least one field is named `name` (case-insensitive).
    public func contains(name: String) -> Bool {
        firstIndex(named: name) != nil
    }

    /// The value of the first field named `name` (case-insensitive), or nil.
    public func first(name: String) -> String? {
        guard let index = firstIndex(named: name) else { return nil }
        return Latin1.string(rawValue(at: index))
    }

    /// The values of every field named `name` (case-insensitive) joined with ", " in order, nil when none
    /// is: how URLSession's `value(forHTTPHeaderField:)` reads duplicated fields. No array is made.
    public func combinedValue(name: String) -> String? {
        var combined: String?
        var next = firstIndex(named: name)
        while let index = next {
            let value = Latin1.string(rawValue(at: index))
            combined = combined.map { $0 + ", " + value } ?? value
            next = firstIndex(named: name, from: index + 1)
        }
        return combined
    }

    /// The value of every field named `name` (case-insensitive), in order.
    public func values(name: String) -> [String] {
        var values: [String] = []
        var next = firstIndex(named: name)
        while let index = next {
            values.append(Latin1.string(rawValue(at: index)))
            next = firstIndex(named: name, from: index + 1)
        }
        return values
    }

    // MARK: List values

    /// True when any field `name` has `token` among its comma-separated elements (case-insensitive,
    /// OWS trimmed), e.g. `containsToken("close", inField: "Connection")`.
    public func containsToken(_ token: String, inField name: String) -> Bool {
        // The token's bytes are read in place: comparing through `String.UTF8View`'s iterator took some 130
        // instructions per element (a `Connection: close` response asks once per connection).
        var token = token
        return token.withUTF8 { wanted in
            guard !wanted.isEmpty else { return false }
            var found = false
            forEachElement(inField: name) { element in
                guard !found, element.count == wanted.count else { return }
                found = element.withUnsafeBufferPointer { ASCII.equalIgnoringCase($0, wanted) }
            }
            return found
        }
    }

    /// Calls `body` with every comma-separated element, OWS trimmed, of every field named `name`, in
    /// order. Empty elements are passed too (an empty value is one empty element).
    func forEachElement<Failure: Error>(
        inField name: String,
        _ body: (ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        var next = firstIndex(named: name)
        while let index = next {
            next = firstIndex(named: name, from: index + 1)
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
