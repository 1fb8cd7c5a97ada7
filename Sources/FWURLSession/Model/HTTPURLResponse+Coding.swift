// HTTPURLResponse+Coding.swift
//
// What an HTTP response's NSSecureCoding writes, besides the URL the superclass writes: the status code,
// the HTTP version and every header field as received, as [name, value] pairs in order, so the wire
// view (`orderedHeaderFields`) survives the archive and the derived metadata is derived again.

import Foundation

extension HTTPURLResponse {
    /// The archive keys.
    private enum HTTPArchiveKey: String {
        case statusCode = "FWHTTPURLResponse.statusCode"
        case httpVersion = "FWHTTPURLResponse.httpVersion"
        case headerFields = "FWHTTPURLResponse.headerFields"
    }

    /// What `encode(with:)` writes for a keyed `coder`, besides the metadata.
    func encodeHead(with coder: NSCoder) {
        coder.encode(Int64(statusCode), forKey: HTTPArchiveKey.statusCode.rawValue)
        coder.encode(httpVersion, forKey: HTTPArchiveKey.httpVersion.rawValue)
        coder.encode(orderedHeaderFields.map { [$0.name, $0.value] }, forKey: HTTPArchiveKey.headerFields.rawValue)
    }

    /// The status line and header fields of an archived HTTP response, read and type-checked.
    struct ArchivedHTTPHead {
        let url: URL
        let statusCode: Int
        let httpVersion: String?
        let fields: [(name: String, value: String)]

        /// Nil when `coder` is not keyed, the archive has no URL, or a field is not a [name, value] pair.
        init?(coder: NSCoder) {
            guard let response = URLResponse.ArchivedResponse(coder: coder),
                  let pairs = coder.decodeObject(of: [NSArray.self, NSString.self],
                                                 forKey: HTTPArchiveKey.headerFields.rawValue) as? [[String]],
                  pairs.allSatisfy({ $0.count == 2 })
            else { return nil }
            url = response.url
            statusCode = Int(clamping: coder.decodeInt64(forKey: HTTPArchiveKey.statusCode.rawValue))
            httpVersion = coder.decodeObject(of: NSString.self, forKey: HTTPArchiveKey.httpVersion.rawValue)
                .map { String($0) }
            fields = pairs.map { (name: $0[0], value: $0[1]) }
        }
    }
}
