// MARK: - OCSPResponseDates

/// The validity window of a DER OCSP response fixture, read from the DER itself, so that tests place
/// their verification time relative to the fixture and never to the wall clock.
///
/// Walks RFC 6960 §4.2.1: OCSPResponse → responseBytes [0] → BasicOCSPResponse (in an OCTET STRING) →
/// tbsResponseData → responses → the first SingleResponse → thisUpdate and nextUpdate [0].
struct OCSPResponseDates {
    /// `thisUpdate` of the first single response, in seconds since 1970.
    let thisUpdate: Int64
    /// `nextUpdate` of the first single response, in seconds since 1970.
    let nextUpdate: Int64

    init(der: [UInt8]) throws {
        let response = try DERNode.sequence(der)
        let responseBytes = try response.child(tagged: 0xA0).only().children()
        let basic = try DERNode.sequence(responseBytes.element(1, tagged: 0x04).contents)
        let tbsResponseData = try basic.element(0, tagged: 0x30).children()
        // Skip the optional version [0] and the responder id ([1] or [2]), then producedAt.
        let afterProducedAt = tbsResponseData.drop(while: { $0.tag != 0x18 }).dropFirst()
        guard let responses = afterProducedAt.first, responses.tag == 0x30 else { throw DERError("no responses") }
        let single = try responses.children().element(0, tagged: 0x30).children()
        // certID, certStatus, thisUpdate, then nextUpdate [0] EXPLICIT.
        thisUpdate = try single.element(2, tagged: 0x18).generalizedTime()
        nextUpdate = try single.element(3, tagged: 0xA0).only().generalizedTime()
    }
}

// MARK: - DER

/// A malformed fixture.
struct DERError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One tag-length-value of DER: enough of X.690 to walk a fixture (single-byte tags, definite lengths).
struct DERNode {
    let tag: UInt8
    let contents: ArraySlice<UInt8>

    /// The one node `bytes` must hold, which must be a SEQUENCE.
    static func sequence(_ bytes: ArraySlice<UInt8>) throws -> [DERNode] {
        let nodes = try parse(bytes)
        guard nodes.count == 1, nodes[0].tag == 0x30 else { throw DERError("expected one SEQUENCE") }
        return try nodes[0].children()
    }

    static func sequence(_ bytes: [UInt8]) throws -> [DERNode] {
        try sequence(bytes[...])
    }

    /// The nodes of a constructed node.
    func children() throws -> [DERNode] {
        try Self.parse(contents)
    }

    /// The single child of an EXPLICIT tag.
    func only() throws -> DERNode {
        let nodes = try children()
        guard nodes.count == 1 else { throw DERError("expected one element in tag \(tag)") }
        return nodes[0]
    }

    /// A GeneralizedTime `YYYYMMDDHHMMSSZ` as seconds since 1970.
    func generalizedTime() throws -> Int64 {
        let text = String(decoding: contents, as: UTF8.self)
        guard tag == 0x18, text.count == 15, text.hasSuffix("Z") else { throw DERError("bad time \(text)") }
        let digits = Array(text.utf8.dropLast()).map { Int64($0) - 48 }
        guard digits.allSatisfy({ (0...9).contains($0) }) else { throw DERError("bad time \(text)") }
        func number(_ range: Range<Int>) -> Int64 { digits[range].reduce(0) { $0 * 10 + $1 } }
        let days = Self.daysSince1970(year: number(0..<4), month: number(4..<6), day: number(6..<8))
        return days * 86_400 + number(8..<10) * 3_600 + number(10..<12) * 60 + number(12..<14)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) throws -> [DERNode] {
        var nodes: [DERNode] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes.endIndex - index >= 2 else { throw DERError("truncated header") }
            let tag = bytes[index]
            var length = Int(bytes[index + 1])
            index += 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...4).contains(count), bytes.endIndex - index >= count else { throw DERError("bad length") }
                length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard bytes.endIndex - index >= length else { throw DERError("truncated contents") }
            nodes.append(DERNode(tag: tag, contents: bytes[index..<index + length]))
            index += length
        }
        return nodes
    }
}

extension [DERNode] {
    /// The node at `position`, which must carry `tag`.
    func element(_ position: Int, tagged tag: UInt8) throws -> DERNode {
        guard position < count, self[position].tag == tag else {
            throw DERError("expected tag \(tag) at position \(position)")
        }
        return self[position]
    }

    /// The first node carrying `tag`.
    func child(tagged tag: UInt8) throws -> DERNode {
        guard let node = first(where: { $0.tag == tag }) else { throw DERError("no tag \(tag)") }
        return node
    }
}
