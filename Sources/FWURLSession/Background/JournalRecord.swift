import Foundation

// MARK: - JournalRecord
//
// One durable task's record in a background session's journal (`BackgroundJournal`): what a later process
// needs to give the task back and continue it — the original request, the task's identifier and
// description, the partial file, how many of its bytes are safely on disk, and the validator (a strong
// `ETag`, else `Last-Modified`) that proves a resumed range belongs to the same resource.
//
// On disk a record is an envelope around a JSON payload, all integers big-endian:
//
//     "FWBJ"            4 bytes   magic
//     version           2 bytes   `JournalRecord.formatVersion` (1)
//     payload length    4 bytes   at most `maxPayloadLength`
//     payload           n bytes   the record as JSON (keys sorted)
//     CRC-32            4 bytes   IEEE 802.3, over version, length and payload
//
// Decoding checks every field in that order and names the first one that is wrong: a record cut short
// (a torn write), a foreign file, a newer version, a payload that is not what the checksum covers, or a
// payload that does not decode. A record that fails any check is reported and never trusted.

/// A durable task's journal record.
struct JournalRecord: Codable, Equatable, Sendable {
    /// The envelope version this build writes and reads.
    static let formatVersion: UInt16 = 1
    /// The largest payload a record may have (a request's URL and fields fit easily).
    static let maxPayloadLength = 1 << 20
    static let magic: [UInt8] = Array("FWBJ".utf8)
    /// The bytes before the payload.
    static let headerLength = 10

    /// What kind of task the record is for.
    enum Kind: String, Codable, Sendable {
        case download
        case upload
    }

    var kind: Kind
    /// The task's `taskIdentifier`, kept across processes.
    var taskIdentifier: Int
    /// The task's `taskDescription`.
    var taskDescription: String?
    /// The original request: URL, method and fields in order (a body is never journaled; an upload
    /// names its file).
    var url: URL
    var method: String
    var headerFields: [[String]]
    /// An upload task's body file.
    var uploadFilePath: String?
    /// A download task's partial file (nil before its response arrived).
    var partialFilePath: String?
    /// The bytes of the partial file that were synced to disk before this record was written.
    var bytesWritten: Int64
    /// The whole body's length, when the server said it.
    var expectedTotalBytes: Int64?
    /// The response's strong `ETag`.
    var entityTag: String?
    /// The response's `Last-Modified` (used when there is no strong ETag).
    var lastModified: String?

    /// The validator sent in `If-Range`: the strong ETag, else Last-Modified.
    var validator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    // MARK: Encoding

    /// The record in its on-disk envelope.
    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A struct of strings, integers and a URL always encodes.
        let payload = Array((try? encoder.encode(self)) ?? Data())
        var covered: [UInt8] = []
        covered.appendBigEndian(Self.formatVersion)
        covered.appendBigEndian(UInt32(payload.count))
        covered += payload
        var bytes = Self.magic + covered
        bytes.appendBigEndian(CRC32.checksum(covered))
        return bytes
    }
}

extension JournalRecord {
    /// Decodes an envelope; throws the first thing that is wrong with it.
    init(decoding bytes: [UInt8]) throws(JournalRecordError) {
        guard bytes.count >= Self.headerLength else { throw .truncated(length: bytes.count) }
        guard Array(bytes[0..<4]) == Self.magic else { throw .notARecord }
        let version = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
        guard version == Self.formatVersion else { throw .unsupportedVersion(Int(version)) }
        let length = Int(bytes[6]) << 24 | Int(bytes[7]) << 16 | Int(bytes[8]) << 8 | Int(bytes[9])
        guard length <= Self.maxPayloadLength else { throw .payloadTooLarge(length) }
        let total = Self.headerLength + length + 4
        guard bytes.count >= total else { throw .truncated(length: bytes.count) }
        guard bytes.count == total else { throw .trailingBytes(bytes.count - total) }
        let stored = bytes[total - 4..<total].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard CRC32.checksum(bytes[4..<total - 4]) == stored else { throw .checksumMismatch }
        do {
            self = try JSONDecoder().decode(JournalRecord.self, from: Data(bytes[Self.headerLength..<total - 4]))
        } catch {
            throw .malformedPayload("\(error)")
        }
        guard taskIdentifier > 0, bytesWritten >= 0, headerFields.allSatisfy({ $0.count == 2 }) else {
            throw .malformedPayload("identifier \(taskIdentifier), \(bytesWritten) bytes")
        }
    }
}

// MARK: - JournalRecordError

/// Why a journal record was not trusted.
enum JournalRecordError: Error, Equatable, CustomStringConvertible {
    /// The record ends early (a torn write): `length` bytes were there.
    case truncated(length: Int)
    /// The file does not start with the record magic.
    case notARecord
    /// A version this build does not read.
    case unsupportedVersion(Int)
    /// The payload length is beyond the limit.
    case payloadTooLarge(Int)
    /// Bytes follow the checksum.
    case trailingBytes(Int)
    /// The checksum does not match the bytes it covers.
    case checksumMismatch
    /// The payload is not a record.
    case malformedPayload(String)

    var description: String {
        switch self {
        case .truncated(let length): "truncated record (\(length) bytes)"
        case .notARecord: "not a journal record"
        case .unsupportedVersion(let version): "unsupported record version \(version)"
        case .payloadTooLarge(let length): "record payload of \(length) bytes is too large"
        case .trailingBytes(let count): "\(count) bytes after the record"
        case .checksumMismatch: "record checksum mismatch"
        case .malformedPayload(let reason): "malformed record payload: \(reason)"
        }
    }
}

// MARK: - CRC-32

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's `crc32`.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

extension [UInt8] {
    mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
