// CacheKey.swift
//
// The key a response is stored under (RFC 9111 §2: the target URI, the request method being part of it):
// the request's absolute URL without its fragment, for GET requests only. Other methods are neither
// stored nor looked up; removal goes by URL whatever the method (an unsafe request invalidates the GET
// response stored for its URL, §4.4). No normalisation beyond dropping the fragment: two spellings of a
// URL are two keys. The disk tier names files after the key's SHA-256, so a URL never becomes a path.

import Foundation
import FWTLS

/// The key of a stored response: an absolute URL without its fragment.
struct CacheKey: Hashable, Sendable {
    /// The absolute URL string without the fragment.
    let string: String

    // MARK: Creation

    /// The key of the resource `url` names, whatever the method of the request for it.
    init(url: URL) {
        let absolute = url.absoluteString
        string = absolute.firstIndex(of: "#").map { String(absolute[..<$0]) } ?? absolute
    }

    /// The key for storing and looking up responses to `request`; nil unless it is a GET with a URL.
    init?(storableRequest request: URLRequest) {
        guard let url = request.url, request.httpMethod == "GET" else { return nil }
        self.init(url: url)
    }

    // MARK: Disk name

    /// The lowercase hexadecimal SHA-256 of the key: the stem of its entry files.
    var fileStem: String {
        Digest.sha256.hexHash(string)
    }
}
