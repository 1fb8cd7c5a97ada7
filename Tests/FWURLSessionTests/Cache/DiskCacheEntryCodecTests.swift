// DiskCacheEntryCodecTests.swift
//
// DiskCacheEntryCodec: the version-1 layout byte by byte, round trips of every kind of response, and every
// way a file can be wrong (truncated at any length, any byte flipped, trailing bytes, another version,
// another key, garbage, valid checksum over bad metadata), each an error and never a response.

import Foundation
import FWTLS
import Testing
@testable import FWURLSession
import TestSupport

@Suite struct DiskCacheEntryCodecTests {
    let key = CacheKey(url: URL(string: CacheFixtures.url)!)

    /// An HTTP response as the cache stores it: ordered fields with a duplicate, Vary values, exchange times.
    func storedHTTP(data: Data = Data("hello".utf8)) -> CachedURLResponse {
        let response = CacheFixtures.response([("Content-Type", "text/plain"), ("Set-Cookie", "a=1"),
                                               ("set-cookie", "b=2"), ("Vary", "Accept")])
        return CachedURLResponse(response: response, data: data, userInfo: nil, storagePolicy: .allowed,
                                 cacheInfo: CacheEntryInfo(requestDate: CacheFixtures.date(-1.5),
                                                           responseDate: CacheFixtures.date(-0.25),
                                                           storedDate: CacheFixtures.date(0.125),
                                                           varyingFields: [VaryingField(name: "accept", value: nil)]))
    }

    /// `file` with its checksum recomputed, so that a test reaches the checks after it.
    func resealed(_ file: Data) -> Data {
        var body = Data(file.dropLast(DiskCacheEntryCodec.checksumSize))
        body.append(contentsOf: Digest.sha256.hash(body))
        return body
    }

    // MARK: Layout

    @Test func theLayoutIsMagicVersionLengthsMetadataBodyChecksum() throws {
        let file = DiskCacheEntryCodec.encode(storedHTTP(), key: key)
        let bytes = [UInt8](file)
        #expect(Array(bytes[0..<4]) == Array("FWUC".utf8))
        #expect(Array(bytes[4..<6]) == [0, 1])
        let metadataLength = bytes[6..<10].reduce(0) { $0 << 8 | Int($1) }
        let bodyLength = bytes[10..<18].reduce(0) { $0 << 8 | Int($1) }
        #expect(bodyLength == 5)
        #expect(bytes.count == 18 + metadataLength + bodyLength + 32)
        let metadata = try #require(String(bytes: bytes[18..<18 + metadataLength], encoding: .utf8))
        #expect(metadata.hasPrefix("{\"headerFields\":"))
        #expect(metadata.contains("\"key\":\"https://example.com/a\""))
        #expect(Array(bytes[(18 + metadataLength)..<(18 + metadataLength + 5)]) == Array("hello".utf8))
        #expect(Array(bytes.suffix(32)) == Digest.sha256.hash(bytes.dropLast(32)))
    }

    // MARK: Round trips

    @Test func anHTTPResponseComesBackAsStored() throws {
        let original = storedHTTP()
        let decoded = try DiskCacheEntryCodec.decode(DiskCacheEntryCodec.encode(original, key: key), key: key)
        let response = try #require(decoded.response as? HTTPURLResponse)
        let expected = try #require(original.response as? HTTPURLResponse)
        #expect(response.statusCode == 200)
        #expect(response.httpVersion == "HTTP/1.1")
        #expect(response.orderedHeaderFields.map { "\($0.name): \($0.value)" }
            == expected.orderedHeaderFields.map { "\($0.name): \($0.value)" })
        #expect(decoded == original)
        #expect(decoded.data == Data("hello".utf8))
        #expect(decoded.storagePolicy == .allowed)
        #expect(decoded.cacheInfo == original.cacheInfo)
    }

    @Test func aResponseMadeWithThePublicInitialiserKeepsItsMissingVersion() throws {
        let response = try #require(HTTPURLResponse(url: URL(string: CacheFixtures.url)!, statusCode: 404,
                                                    httpVersion: nil, headerFields: ["B": "2", "a": "1"]))
        let original = CachedURLResponse(response: response, data: Data()).stamped(storedAt: CacheFixtures.epoch,
                                                                                     for: CacheFixtures.request())
        let decoded = try DiskCacheEntryCodec.decode(DiskCacheEntryCodec.encode(original, key: key), key: key)
        let http = try #require(decoded.response as? HTTPURLResponse)
        #expect(http.httpVersion == nil)
        #expect(http.statusCode == 404)
        #expect(http.orderedHeaderFields.map(\.name) == ["a", "B"])
        #expect(decoded.data.isEmpty)
    }

    @Test func aPlainURLResponseComesBack() throws {
        let response = URLResponse(url: URL(string: CacheFixtures.url)!, mimeType: "text/html",
                                   expectedContentLength: 42, textEncodingName: "utf-8")
        let original = CachedURLResponse(response: response, data: Data(count: 42))
            .stamped(storedAt: CacheFixtures.epoch, for: CacheFixtures.request())
        let decoded = try DiskCacheEntryCodec.decode(DiskCacheEntryCodec.encode(original, key: key), key: key)
        #expect(!(decoded.response is HTTPURLResponse))
        #expect(decoded.response == response)
        #expect(decoded.response.mimeType == "text/html")
        #expect(decoded.response.textEncodingName == "utf-8")
        #expect(decoded.cacheInfo?.varyingFields == nil)
    }

    @Test func aPropertyListUserInfoComesBack() throws {
        let userInfo: [AnyHashable: Any] = ["name": "x", "count": 3, "list": ["a", "b"]]
        let original = CachedURLResponse(response: CacheFixtures.response(), data: Data(), userInfo: userInfo,
                                         storagePolicy: .allowed).stamped(storedAt: CacheFixtures.epoch,
                                                                          for: CacheFixtures.request())
        let decoded = try DiskCacheEntryCodec.decode(DiskCacheEntryCodec.encode(original, key: key), key: key)
        let info = try #require(decoded.userInfo)
        #expect(info["name"] as? String == "x")
        #expect(info["count"] as? Int == 3)
        #expect(info["list"] as? [String] == ["a", "b"])
    }

    @Test func aUserInfoThatIsNoPropertyListIsLeftOut() throws {
        let userInfo: [AnyHashable: Any] = [1: "integer key"]
        let original = CachedURLResponse(response: CacheFixtures.response(), data: Data(), userInfo: userInfo,
                                         storagePolicy: .allowed).stamped(storedAt: CacheFixtures.epoch,
                                                                          for: CacheFixtures.request())
        let decoded = try DiskCacheEntryCodec.decode(DiskCacheEntryCodec.encode(original, key: key), key: key)
        #expect(decoded.userInfo == nil)
    }

    // MARK: Damaged files

    @Test func everyTruncationIsAnError() {
        let file = DiskCacheEntryCodec.encode(storedHTTP(), key: key)
        for length in 0..<file.count {
            #expect(throws: DiskCacheFormatError.self, "length \(length)") {
                try DiskCacheEntryCodec.decode(file.prefix(length), key: key)
            }
        }
    }

    @Test func everyFlippedByteIsAnError() {
        let file = DiskCacheEntryCodec.encode(storedHTTP(), key: key)
        for offset in 0..<file.count {
            var damaged = file
            damaged[offset] ^= 0x01
            #expect(throws: DiskCacheFormatError.self, "offset \(offset)") {
                try DiskCacheEntryCodec.decode(damaged, key: key)
            }
        }
    }

    struct DamageCase: Sendable, CustomTestStringConvertible {
        var damage: String
        var error: DiskCacheFormatError
        var testDescription: String { damage }
    }

    static let damageCases: [DamageCase] = [
        DamageCase(damage: "trailing byte", error: .truncated),
        DamageCase(damage: "empty file", error: .truncated),
        DamageCase(damage: "other magic", error: .notAnEntry),
        DamageCase(damage: "version 2", error: .unsupportedVersion),
        DamageCase(damage: "version 0", error: .unsupportedVersion),
        DamageCase(damage: "body length too large", error: .truncated),
        DamageCase(damage: "checksum of other bytes", error: .checksumMismatch),
        DamageCase(damage: "sealed metadata that is not JSON", error: .malformedMetadata),
        DamageCase(damage: "sealed metadata with a bad status", error: .malformedMetadata),
        DamageCase(damage: "another key", error: .otherKey),
    ]

    @Test(arguments: damageCases)
    func damageIsReportedPrecisely(_ testCase: DamageCase) {
        let file = damaged(testCase.damage)
        #expect(throws: testCase.error) {
            try DiskCacheEntryCodec.decode(file, key: key)
        }
    }

    @Test func garbageIsAnError() {
        var random = SplitMix64(seed: 13)
        for length in [0, 1, 17, 50, 51, 64, 1000] {
            let garbage = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            #expect(throws: DiskCacheFormatError.self) {
                try DiskCacheEntryCodec.decode(garbage, key: key)
            }
        }
    }

    /// The encoded entry damaged as `damage` says.
    func damaged(_ damage: String) -> Data {
        var file = DiskCacheEntryCodec.encode(storedHTTP(), key: key)
        switch damage {
        case "trailing byte": file.append(0)
        case "empty file": file = Data()
        case "other magic": file[0] = UInt8(ascii: "X")
        case "version 2": file[5] = 2
        case "version 0": file[5] = 0
        case "body length too large": file[17] = 0xFF
        case "checksum of other bytes": file[file.count - 1] ^= 0xFF
        case "sealed metadata that is not JSON":
            file[18] = UInt8(ascii: "!")
            file = resealed(file)
        case "sealed metadata with a bad status": file = sealedEntry(metadata: badStatusMetadata())
        default: file = DiskCacheEntryCodec.encode(storedHTTP(), key: CacheKey(url: URL(string: "https://x.test/")!))
        }
        return file
    }

    /// Metadata with an impossible status code.
    func badStatusMetadata() -> Data {
        var metadata = DiskCacheMetadata(storedHTTP(), key: key)
        metadata.statusCode = 42
        return metadata.encoded()
    }

    /// A well-formed, correctly sealed file around `metadata` and an empty body.
    func sealedEntry(metadata: Data) -> Data {
        var file = Data("FWUC".utf8) + Data([0, 1])
        file += Data(withUnsafeBytes(of: UInt32(metadata.count).bigEndian) { Array($0) })
        file += Data(count: 8)
        file += metadata
        file.append(contentsOf: Digest.sha256.hash(file))
        return file
    }
}
