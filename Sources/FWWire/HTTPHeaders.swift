// Header fields stored as one byte buffer plus the ranges of each name and value. Parsing appends raw
// bytes without building Strings; Strings are made only when a caller asks for a name or a value.

/// Ordered header fields, duplicates kept in order, case-insensitive lookup by name.
///
/// Storage is one `[UInt8]` buffer plus an array of (name range, value range). Strings are produced on
/// demand, decoded as ISO-8859-1 (each byte becomes the Unicode scalar of the same value: lossless).
/// Strings passed in are encoded as UTF-8.
public struct HTTPHeaders: Sendable {
    /// Where one field's name and value sit in `storage`.
    struct FieldRanges: Sendable {
        var name: Range<Int>
        var value: Range<Int>
    }

    /// Every name and value in field order. A parsed field keeps the colon and whitespace between its name
    /// and value (`appendFieldLine`), which belong to neither range. Invariant: the last field's value ends
    /// the buffer (so an obs-fold continuation can extend it in place).
    private var storage: [UInt8]
    /// The ranges of each field in `storage`, in field order.
    private var fields: [FieldRanges]
    /// A bit for each name the fields may have (`nameBit`): a lookup of a name whose bit is clear answers
    /// "none" without scanning (most lookups of a response head are for fields it does not have:
    /// Transfer-Encoding, Set-Cookie, ...). Bits are set as fields are added and never cleared, so a set bit
    /// only means "scan"; not part of equality.
    private var nameBits: UInt64 = 0

    // MARK: Creating

    /// Empty header fields.
    public init() {
        storage = []
        fields = []
    }

    /// Header fields in the given order.
    public init(_ fields: [(name: String, value: String)]) {
        self.init()
        for field in fields {
            add(name: field.name, value: field.value)
        }
    }

    // MARK: Reading

    /// The number of fields (each duplicate counts).
    public var count: Int {
        fields.count
    }

    /// True when there are no fields.
    public var isEmpty: Bool {
        fields.isEmpty
    }

    /// The field at `index` (0 ..< count), name and value decoded as ISO-8859-1.
    public subscript(index: Int) -> (name: String, value: String) {
        (name: Latin1.string(rawName(at: index)), value: Latin1.string(rawValue(at: index)))
    }

    /// The bytes of the name of the field at `index`.
    public func rawName(at index: Int) -> ArraySlice<UInt8> {
        storage[fields[index].name]
    }

    /// The bytes of the value of the field at `index`.
    public func rawValue(at index: Int) -> ArraySlice<UInt8> {
        storage[fields[index].value]
    }

    // MARK: Changing

    /// Appends a field; name and value are stored as their UTF-8 bytes.
    public mutating func add(name: String, value: String) {
        // Copied from where the strings keep their bytes (a bridged string is made native first): appending a
        // `String.UTF8View` goes through its generic copy, some 70 instructions more per string.
        var name = name
        var value = value
        name.withUTF8 { name in value.withUTF8 { appendField(name: name, value: $0) } }
    }

    /// Removes every field named `name` (case-insensitive), then appends one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(name: String) {
        guard contains(name: name) else { return }
        var kept = HTTPHeaders()
        kept.storage.reserveCapacity(storage.count)
        kept.fields.reserveCapacity(fields.count)
        for index in fields.indices where !nameMatches(at: index, name) {
            kept.appendField(name: rawName(at: index), value: rawValue(at: index))
        }
        self = kept
    }

    /// Inserts a field before all the others (one new buffer, sized once).
    public mutating func addFirst(name: String, value: String) {
        var front = HTTPHeaders()
        front.reserveCapacity(fields: fields.count + 1, bytes: name.utf8.count + value.utf8.count + storage.count)
        front.add(name: name, value: value)
        front.storage.append(contentsOf: storage)
        let shift = front.storage.count - storage.count
        for field in fields {
            front.fields.append(FieldRanges(name: field.name.lowerBound + shift..<field.name.upperBound + shift,
                                            value: field.value.lowerBound + shift..<field.value.upperBound + shift))
        }
        front.nameBits |= nameBits
        self = front
    }

    /// Moves every field named `name` (case-insensitive) before all the others, keeping the order within
    /// each group and every byte as it is.
    public mutating func moveToFront(name: String) {
        guard contains(name: name) else { return }
        // Already in front (the usual case: the field was just added there): nothing moves.
        if let firstOther = fields.indices.first(where: { !nameMatches(at: $0, name) }),
           !fields.indices[firstOther...].contains(where: { nameMatches(at: $0, name) }) {
            return
        }
        var moved = HTTPHeaders()
        moved.storage.reserveCapacity(storage.count)
        moved.fields.reserveCapacity(fields.count)
        for index in fields.indices where nameMatches(at: index, name) {
            moved.appendField(name: rawName(at: index), value: rawValue(at: index))
        }
        for index in fields.indices where !nameMatches(at: index, name) {
            moved.appendField(name: rawName(at: index), value: rawValue(at: index))
        }
        self = moved
    }

    // MARK: Appending raw bytes (parser)

    /// Reserves room for `fields` fields taking `bytes` bytes of names and values (UTF-8) in all, so that
    /// adding them allocates nothing more.
    public mutating func reserveCapacity(fields fieldCount: Int, bytes byteCount: Int) {
        fields.reserveCapacity(fieldCount)
        storage.reserveCapacity(byteCount)
    }

    /// Appends a field from raw bytes, unchecked (the caller validated them).
    mutating func appendField<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value) {
        let nameStart = storage.count
        storage.append(contentsOf: name)
        let valueStart = storage.count
        storage.append(contentsOf: value)
        fields.append(FieldRanges(name: nameStart..<valueStart, value: valueStart..<storage.count))
        if let first = name.first { nameBits |= Self.nameBit(first: first, count: valueStart - nameStart) }
    }

    /// Appends a parsed field line up to the end of its value in one copy, unchecked (the parser validated
    /// it): the name is its first `nameLength` bytes and the value starts at `valueStart`.
    mutating func appendFieldLine(_ line: UnsafeRawBufferPointer, nameLength: Int, valueStart: Int) {
        let start = storage.count
        storage.append(contentsOf: line)
        fields.append(FieldRanges(name: start..<start + nameLength, value: start + valueStart..<storage.count))
        if nameLength > 0 { nameBits |= Self.nameBit(first: line[0], count: nameLength) }
    }

    /// The bit of `nameBits` for a name of `count` bytes starting with `first` (either case).
    private static func nameBit(first: UInt8, count: Int) -> UInt64 {
        1 << UInt64((Int(ASCII.lowercased(first)) &+ count) & 63)
    }

    /// Joins an obs-fold continuation (already trimmed) to the last field's value with one SP.
    /// Precondition: at least one field.
    mutating func appendToLastValue(_ continuation: UnsafeRawBufferPointer) {
        guard let last = fields.indices.last else {
            preconditionFailure("obs-fold continuation with no field to continue")
        }
        guard !continuation.isEmpty else { return }
        if !fields[last].value.isEmpty {
            storage.append(ASCII.space)
        }
        storage.append(contentsOf: continuation)
        fields[last].value = fields[last].value.lowerBound..<storage.count
    }

    /// The index of the first field at or after `start` named `name` (ASCII-case-insensitive on UTF-8 bytes),
    /// or nil. The lookups scan with it: the name's bytes, the buffer and the ranges are opened once per scan,
    /// and a field is ruled out by its length and first byte before the rest is compared.
    func firstIndex(named name: String, from start: Int = 0) -> Int? {
        guard start < fields.count else { return nil }
        // A native string's bytes are read where they are; only a bridged one is copied into a `var`.
        if let found = name.utf8.withContiguousStorageIfAvailable({ firstIndex(named: $0, from: start) }) {
            return found
        }
        var name = name
        return name.withUTF8 { firstIndex(named: $0, from: start) }
    }

    /// `firstIndex(named:from:)` for a name given as its UTF-8 bytes.
    private func firstIndex(named wanted: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let head = wanted.first.map(ASCII.lowercased) else {
            return fields[start...].firstIndex { $0.name.isEmpty }
        }
        guard nameBits & Self.nameBit(first: head, count: wanted.count) != 0 else { return nil }
        return withStorage { stored, ranges -> Int? in
            var index = start
            while index < ranges.count {
                let range = ranges[index].name
                if range.count == wanted.count, ASCII.lowercased(stored[range.lowerBound]) == head,
                   ASCII.equalIgnoringCase(UnsafeBufferPointer(rebasing: stored[range]), wanted, from: 1) {
                    return index
                }
                index += 1
            }
            return nil
        }
    }

    /// Calls `body` with the stored bytes and the ranges of every field, read in place.
    func withStorage<Result>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<FieldRanges>) -> Result)
        -> Result {
        storage.withUnsafeBufferPointer { bytes in fields.withUnsafeBufferPointer { body(bytes, $0) } }
    }

    /// True when the field at `index` is named `name`, compared ASCII-case-insensitively on UTF-8 bytes.
    /// Lengths are compared first, so most fields are ruled out without touching their bytes.
    func nameMatches(at index: Int, _ name: String) -> Bool {
        let range = fields[index].name
        guard range.count == name.utf8.count else { return false }
        var name = name
        return name.withUTF8 { wanted in
            storage.withUnsafeBufferPointer { stored in
                ASCII.equalIgnoringCase(UnsafeBufferPointer(rebasing: stored[range]), wanted)
            }
        }
    }
}

// MARK: - Equatable

extension HTTPHeaders: Equatable {
    /// Equal when both hold the same fields, byte for byte, in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.count == rhs.count
            && lhs.fields.indices.allSatisfy { index in
                lhs.rawName(at: index) == rhs.rawName(at: index)
                    && lhs.rawValue(at: index) == rhs.rawValue(at: index)
            }
    }
}

// MARK: - Sequence

extension HTTPHeaders: Sequence {
    /// Walks the fields in order, decoding each as ISO-8859-1.
    public struct Iterator: IteratorProtocol {
        private let headers: HTTPHeaders
        private var index = 0

        init(_ headers: HTTPHeaders) {
            self.headers = headers
        }

        /// The next field, or nil after the last one.
        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.count else { return nil }
            defer { index += 1 }
            return headers[index]
        }
    }

    /// An iterator over the fields in order.
    public func makeIterator() -> Iterator {
        Iterator(self)
    }

    /// The number of fields.
    public var underestimatedCount: Int {
        count
    }
}

// MARK: - Literals and printing

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Header fields in literal order, e.g. `["Host": "example.com", "Accept": "*/*"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init()
        for (name, value) in elements {
            add(name: name, value: value)
        }
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The fields as `[Name: value, ...]`, for logs and test failures.
    public var description: String {
        "[" + map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]"
    }
}
