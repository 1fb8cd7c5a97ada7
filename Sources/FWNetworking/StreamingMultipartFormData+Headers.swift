// Part headers of a multipart form: Content-Disposition with quoted names, the MIME type of a file,
// the fixed header order, and the checks finalizing makes (boundary, header names and values, streams).

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Header values

extension StreamingMultipartFormData {
    /// `form-data; name="NAME"` and, with a file name, `; filename="FILE"`. In both, `"`, CR and LF are
    /// written %22, %0D and %0A, as browsers do (HTML's multipart/form-data encoding); AFNetworking
    /// writes them raw, which breaks the header. An FW addition, public for callers of
    /// `appendPart(headers:body:)`.
    public static func contentDisposition(name: String, fileName: String?) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
                .replacingOccurrences(of: "\n", with: "%0A") + "\""
        }
        return "form-data; name=" + quoted(name) + (fileName.map { "; filename=" + quoted($0) } ?? "")
    }

    /// The MIME type for a file name extension: /etc/mime.types, then a small built-in table, else
    /// `application/octet-stream`. An FW addition (the port's lookup is private).
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        MIMEType.forPathExtension(pathExtension)
    }

    /// The headers of a file part.
    static func fileHeaders(name: String, fileName: String, mimeType: String) -> [(name: String, value: String)] {
        [("Content-Disposition", contentDisposition(name: name, fileName: fileName)), ("Content-Type", mimeType)]
    }

    /// `headers` with Content-Disposition first, Content-Type second, then the rest sorted by name.
    static func ordered(_ headers: [String: String]) -> [(name: String, value: String)] {
        func rank(_ name: String) -> Int {
            switch name.lowercased() {
            case "content-disposition": 0
            case "content-type": 1
            default: 2
            }
        }
        return headers.map { (name: $0.key, value: $0.value) }
            .sorted { (rank($0.name), $0.name.lowercased(), $0.name) < (rank($1.name), $1.name.lowercased(), $1.name) }
    }

    // MARK: Checks

    /// Throws for what would make the body invalid: a boundary outside RFC 2046's rules (1 to 70
    /// characters of its set, no trailing space), a header name that is not a token, a header value with
    /// a line break or NUL, a nil stream announced with bytes.
    func validate() throws {
        let boundaryCharacters = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        guard (1...70).contains(boundary.count), boundary.allSatisfy(boundaryCharacters.contains),
              boundary.last != " " else {
            throw invalid("The boundary '\(boundary)' is not a valid multipart boundary")
        }
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for part in parts {
            for header in part.headers {
                guard !header.name.isEmpty, header.name.allSatisfy(tokenCharacters.contains) else {
                    throw invalid("'\(header.name)' is not a valid part header name")
                }
                guard !header.value.unicodeScalars.contains(where: { "\r\n\0".unicodeScalars.contains($0) }) else {
                    throw invalid("The part header \(header.name) holds a line break")
                }
            }
            if case .stream(nil) = part.body.source, part.body.length > 0 {
                throw invalid("A part announces \(part.body.length) bytes of a nil input stream")
            }
        }
    }

    private func invalid(_ description: String) -> NSError {
        HTTPRequestSerializer.serializationError(NSURLErrorCannotDecodeContentData, description)
    }

    /// The size of the readable regular file at `url`; throws `NSURLErrorBadURL` otherwise.
    static func regularFileSize(_ url: URL) throws -> UInt64 {
        func failure(_ description: String) -> NSError {
            HTTPRequestSerializer.serializationError(NSURLErrorBadURL, description)
        }
        guard url.isFileURL else { throw failure("Expected a file URL, not \(url.absoluteString)") }
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw failure("The file \(url.path) is not reachable") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw failure("\(url.path) is not a regular file") }
        guard access(url.path, R_OK) == 0 else { throw failure("The file \(url.path) is not readable") }
        return UInt64(info.st_size)
    }
}
