// DiskCacheEntryCodec.swift
//
// The on-disk format of one cache entry, version 1. One file holds one entry:
//
//     offset  size  field
//     0       4     magic "FWUC" (46 57 55 43)
//     4       2     format version, big-endian: 1
//     6       4     metadata length M, big-endian
//     10      8     body length B, big-endian
//     18      M     metadata: UTF-8 JSON, keys sorted (DiskCacheMetadata below)
//     18+M    B     body: the response data, as delivered (content decoding already undone)
//     18+M+B  32    SHA-256 of every byte before it
//
// The file's length must be exactly 18 + M + B + 32. Decoding checks, in order: length of the fixed
// header, magic, version, declared lengths against the file's length, checksum, metadata, and that the
// metadata's key is the key looked up (a file stem is a hash; the key inside settles it). Any failure is a
// `DiskCacheFormatError`, which the store treats as a miss and removes the file: a torn write, a flipped
// bit, another version or a stranger's file is never a crash and never a wrong body.
//
// The metadata JSON, for example:
//
//     {"headerFields":[["Content-Type","text/plain"],["ETag","\"v1\""]],"httpVersion":"HTTP/1.1",
//      "key":"https://example.com/a","requestDate":784111770,"responseDate":784111777,
//      "statusCode":200,"storedDate":784111777,"url":"https://example.com/a",
//      "varyingFields":[{"name":"accept-encoding","value":"gzip"}]}
//
// Dates are seconds since 1970. A non-HTTP `URLResponse` has `mimeType`, `expectedContentLength` and
// `textEncodingName` instead of the HTTP fields. `userInfo` is kept as a binary property list when it is
// one (string keys, property-list values); otherwise it is not written. A future format bumps the version;
// this build reads only version 1.

import Foundation
import FWTLS

// MARK: - DiskCacheFormatError

/// Why a file is not a readable cache entry.
struct DiskCacheFormatError: Error, Equatable, CustomStringConvertible {
    private enum Code: String {
        case truncated = "the file is shorter or longer than its lengths say"
        case notAnEntry = "the file does not start with the entry magic"
        case unsupportedVersion = "the entry is of another format version"
        case checksumMismatch = "the checksum does not match the content"
        case malformedMetadata = "the metadata is not valid"
        case otherKey = "the entry belongs to another key"
    }

    private let code: Code

    /// The file is shorter or longer than its lengths say.
    static let truncated = DiskCacheFormatError(code: .truncated)
    /// The file does not start with the magic.
    static let notAnEntry = DiskCacheFormatError(code: .notAnEntry)
    /// The file is of a format version this build does not read.
    static let unsupportedVersion = DiskCacheFormatError(code: .unsupportedVersion)
    /// The checksum does not match.
    static let checksumMismatch = DiskCacheFormatError(code: .checksumMismatch)
    /// The metadata does not decode into a response.
    static let malformedMetadata = DiskCacheFormatError(code: .malformedMetadata)
    /// The entry is that of another key.
    static let otherKey = DiskCacheFormatError(code: .otherKey)

    /// A sentence saying what is wrong.
    var description: String { code.rawValue }
}

// MARK: - DiskCacheEntryCodec

/// Encodes and decodes cache entry files (format version 1).
enum DiskCacheEntryCodec {
    /// The first four bytes of every entry file.
    static let magic = Array("FWUC".utf8)
    /// The format version this build writes and reads.
    static let version: UInt16 = 1
    /// The bytes before the metadata.
    static let headerSize = 18
    /// The bytes of the trailing SHA-256.
    static let checksumSize = 32

    /// The file contents for `response` stored under `key`; `response` must carry its storage record.
    static func encode(_ response: CachedURLResponse, key: CacheKey) -> Data {
        let metadata = DiskCacheMetadata(response, key: key).encoded()
        var file = Data(capacity: headerSize + metadata.count + response.data.count + checksumSize)
        file.append(contentsOf: magic)
        appendBigEndian(version, to: &file)
        appendBigEndian(UInt32(truncatingIfNeeded: metadata.count), to: &file)
        appendBigEndian(UInt64(response.data.count), to: &file)
        file.append(metadata)
        file.append(response.data)
        file.append(contentsOf: Digest.sha256.hash(file))
        return file
    }

    /// The response stored under `key` in `file`.
    static func decode(_ file: Data, key: CacheKey) throws(DiskCacheFormatError) -> CachedURLResponse {
        let bytes = [UInt8](file)
        guard bytes.count >= headerSize + checksumSize else { throw .truncated }
        guard Array(bytes[0..<4]) == magic else { throw .notAnEntry }
        guard readBigEndian(bytes, at: 4, size: 2) == UInt64(version) else { throw .unsupportedVersion }
        let metadataLength = readBigEndian(bytes, at: 6, size: 4)
        let bodyLength = readBigEndian(bytes, at: 10, size: 8)
        let payload = UInt64(bytes.count - headerSize - checksumSize)
        guard bodyLength <= payload, metadataLength == payload - bodyLength else { throw .truncated }
        let checksumStart = bytes.count - checksumSize
        guard Digest.sha256.hash(bytes[0..<checksumStart]) == Array(bytes[checksumStart...]) else {
            throw .checksumMismatch
        }
        let metadataEnd = headerSize + Int(metadataLength)
        let metadata = try DiskCacheMetadata.decoded(from: Data(bytes[headerSize..<metadataEnd]))
        guard metadata.key == key.string else { throw .otherKey }
        return try metadata.cachedResponse(data: Data(bytes[metadataEnd..<checksumStart]))
    }

    // MARK: Integers

    /// Appends `value` in big-endian byte order.
    private static func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    /// The big-endian unsigned integer of `size` bytes at `offset`.
    private static func readBigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        bytes[offset..<offset + size].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

// MARK: - DiskCacheMetadata

/// The JSON part of an entry file: everything but the body.
struct DiskCacheMetadata: Codable, Equatable {
    var key: String
    var storedDate: Double
    var requestDate: Double
    var responseDate: Double
    var url: String
    var statusCode: Int?
    var httpVersion: String?
    var headerFields: [[String]]?
    var mimeType: String?
    var expectedContentLength: Int64?
    var textEncodingName: String?
    var varyingFields: [VaryingField]?
    var userInfo: Data?

    /// The metadata of `cached` stored under `key`.
    init(_ cached: CachedURLResponse, key: CacheKey) {
        let info = cached.cacheInfo
        let stored = info?.storedDate ?? info?.responseDate ?? .distantPast
        self.key = key.string
        storedDate = stored.timeIntervalSince1970
        requestDate = (info?.requestDate ?? stored).timeIntervalSince1970
        responseDate = (info?.responseDate ?? stored).timeIntervalSince1970
        url = cached.response.url?.absoluteString ?? key.string
        if let http = cached.response as? HTTPURLResponse {
            statusCode = http.statusCode
            httpVersion = http.httpVersion
            headerFields = http.orderedHeaderFields.map { [$0.name, $0.value] }
        } else {
            mimeType = cached.response.mimeType
            expectedContentLength = cached.response.expectedContentLength
            textEncodingName = cached.response.textEncodingName
        }
        varyingFields = info?.varyingFields
        userInfo = Self.propertyList(cached.userInfo)
    }

    /// The JSON, keys sorted.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers and arrays of them cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// The metadata in `json`.
    static func decoded(from json: Data) throws(DiskCacheFormatError) -> DiskCacheMetadata {
        do {
            return try JSONDecoder().decode(DiskCacheMetadata.self, from: json)
        } catch {
            throw .malformedMetadata
        }
    }

    /// The cached response this metadata describes, with `data` as its body.
    func cachedResponse(data: Data) throws(DiskCacheFormatError) -> CachedURLResponse {
        guard let responseURL = URL(string: url) else { throw .malformedMetadata }
        let response: URLResponse
        if let statusCode {
            guard (100...999).contains(statusCode), let fields = headerFields,
                  fields.allSatisfy({ $0.count == 2 }) else { throw .malformedMetadata }
            response = Self.httpResponse(url: responseURL, statusCode: statusCode, httpVersion: httpVersion,
                                         fields: fields.map { (name: $0[0], value: $0[1]) })
        } else {
            response = URLResponse(url: responseURL, mimeType: mimeType,
                                   expectedContentLength: Int(expectedContentLength ?? -1),
                                   textEncodingName: textEncodingName)
        }
        let info = CacheEntryInfo(
            requestDate: Date(timeIntervalSince1970: requestDate),
            responseDate: Date(timeIntervalSince1970: responseDate),
            storedDate: Date(timeIntervalSince1970: storedDate),
            varyingFields: varyingFields
        )
        return CachedURLResponse(response: response, data: data, userInfo: userInfo.flatMap(Self.dictionary),
                                 storagePolicy: .allowed, cacheInfo: info)
    }

    /// The HTTP response as it was: one read from the wire has a version and ordered fields; one made with
    /// the public initialiser has no version and its fields sorted by name, which that initialiser restores.
    private static func httpResponse(url: URL, statusCode: Int, httpVersion: String?,
                                     fields: [(name: String, value: String)]) -> HTTPURLResponse {
        guard let httpVersion else {
            let dictionary = Dictionary(fields.map { ($0.name, $0.value) }) { first, _ in first }
            return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: nil, headerFields: dictionary)
                ?? HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1",
                                   orderedHeaderFields: fields)
        }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, orderedHeaderFields: fields)
    }

    // MARK: User info

    /// `userInfo` as a binary property list; nil when it has a non-string key or a non-plist value.
    private static func propertyList(_ userInfo: [AnyHashable: Any]?) -> Data? {
        guard let userInfo else { return nil }
        var dictionary: [String: Any] = [:]
        for (key, value) in userInfo {
            guard let key = key.base as? String else { return nil }
            dictionary[key] = value
        }
        guard PropertyListSerialization.propertyList(dictionary, isValidFor: .binary) else { return nil }
        return try? PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
    }

    /// The dictionary in a binary property list; nil when it is not one.
    private static func dictionary(_ propertyList: Data) -> [AnyHashable: Any]? {
        let decoded = try? PropertyListSerialization.propertyList(from: propertyList, options: [], format: nil)
        return (decoded as? [String: Any]).map { Dictionary(uniqueKeysWithValues: $0.map { (AnyHashable($0), $1) }) }
    }
}
