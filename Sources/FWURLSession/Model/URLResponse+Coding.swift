// URLResponse+Coding.swift
//
// What a response's NSSecureCoding writes: every metadata property under a key of its own (the URL as a
// string). A response is immutable, so decoding is a call of the initialiser that takes every property.

import Foundation

extension URLResponse {
    /// The archive keys.
    enum ArchiveKey: String {
        case url = "FWURLResponse.url"
        case mimeType = "FWURLResponse.mimeType"
        case expectedContentLength = "FWURLResponse.expectedContentLength"
        case textEncodingName = "FWURLResponse.textEncodingName"
        case suggestedFilename = "FWURLResponse.suggestedFilename"
    }

    /// Responses decode only what they wrote: always true.
    public class var supportsSecureCoding: Bool { true }

    /// What `encode(with:)` writes for a keyed `coder`.
    func encodeMetadata(with coder: NSCoder) {
        coder.encode(url?.absoluteString, forKey: ArchiveKey.url.rawValue)
        coder.encode(mimeType, forKey: ArchiveKey.mimeType.rawValue)
        coder.encode(expectedContentLength, forKey: ArchiveKey.expectedContentLength.rawValue)
        coder.encode(textEncodingName, forKey: ArchiveKey.textEncodingName.rawValue)
        coder.encode(suggestedFilename, forKey: ArchiveKey.suggestedFilename.rawValue)
    }

    /// The properties of an archived response, read and type-checked.
    struct ArchivedResponse {
        let url: URL
        let mimeType: String?
        let expectedContentLength: Int64
        let textEncodingName: String?
        let suggestedFilename: String

        /// Nil when `coder` is not keyed or the archive has no URL.
        init?(coder: NSCoder) {
            guard coder.allowsKeyedCoding,
                  let url = URLResponse.decodeString(coder, .url).flatMap(URL.init(string:))
            else { return nil }
            self.url = url
            mimeType = URLResponse.decodeString(coder, .mimeType)
            expectedContentLength = coder.decodeInt64(forKey: ArchiveKey.expectedContentLength.rawValue)
            textEncodingName = URLResponse.decodeString(coder, .textEncodingName)
            suggestedFilename = URLResponse.decodeString(coder, .suggestedFilename)
                ?? URLResponse.suggestedFilename(fromLastPathComponentOf: url)
        }
    }

    /// The string archived under `key`, if any.
    static func decodeString(_ coder: NSCoder, _ key: ArchiveKey) -> String? {
        coder.decodeObject(of: NSString.self, forKey: key.rawValue).map { String($0) }
    }
}
