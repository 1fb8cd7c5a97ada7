// MIMEType: the Content-Type of a file part from its name's extension. The system's table comes first:
// /etc/mime.types (Debian's media-types package), read once; lines are `type ext ext...`, `#` starts a
// comment. Without it (or for an extension it lacks) a small built-in table covers the common web
// types; anything else is application/octet-stream, as on Apple platforms.

import Foundation

// MARK: - MIMEType

/// Maps file name extensions to MIME types.
enum MIMEType {
    /// The type for `pathExtension` (case-insensitive), `application/octet-stream` when unknown.
    static func forPathExtension(_ pathExtension: String) -> String {
        let key = pathExtension.lowercased()
        return systemTable[key] ?? builtIn[key] ?? "application/octet-stream"
    }

    /// The system's table, loaded on first use; empty when the file is missing.
    static let systemTable: [String: String] = parse((try? String(contentsOfFile: "/etc/mime.types",
                                                                   encoding: .utf8)) ?? "")

    /// `ext -> type` from mime.types text; the first line that names an extension wins.
    static func parse(_ text: String) -> [String: String] {
        var table: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.prefix { $0 != "#" }.split(whereSeparator: \.isWhitespace)
            guard let type = fields.first, type.contains("/") else { continue }
            for pathExtension in fields.dropFirst() where table[pathExtension.lowercased()] == nil {
                table[pathExtension.lowercased()] = String(type)
            }
        }
        return table
    }

    /// The fallback for systems without /etc/mime.types.
    static let builtIn: [String: String] = [
        "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "js": "text/javascript", "json": "application/json", "xml": "application/xml",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "mp3": "audio/mpeg", "wav": "audio/wav", "mp4": "video/mp4", "webm": "video/webm",
        "wasm": "application/wasm", "plist": "application/x-plist",
    ]
}
