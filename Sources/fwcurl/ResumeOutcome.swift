import Foundation

// MARK: - ResumeOutcome

/// What a response to `Range: bytes=OFFSET-` (`-C`) means for the local file that holds OFFSET bytes.
enum ResumeOutcome: Equatable {
    /// 206 starting at OFFSET: append the body.
    case append
    /// 200: the server ignored the range and sends the whole resource; write it from byte 0.
    case startOver
    /// 416 for a resource of exactly OFFSET bytes (or without a length): nothing left to fetch.
    case alreadyComplete
    /// Anything else: leave the file as it is and fail with this message.
    case refuse(String)

    /// The outcome of a response with `status` and `Content-Range` header `contentRange`.
    init(status: Int, contentRange: String?, offset: Int64) {
        let range = contentRange.flatMap(Self.parse)
        switch status {
        case 206:
            guard let first = range?.first else {
                self = .refuse("cannot resume: the 206 response has no usable Content-Range")
                return
            }
            self = first == offset ? .append
                : .refuse("cannot resume: the server answered from byte \(first), not \(offset)")
        case 200:
            self = .startOver
        case 416:
            guard let total = range?.total, total != offset else {
                self = .alreadyComplete
                return
            }
            self = .refuse("cannot resume from byte \(offset): the server's resource has \(total) bytes")
        default:
            self = .refuse("cannot resume: the server answered \(status)")
        }
    }

    /// `bytes FIRST-LAST/TOTAL` or `bytes */TOTAL` (TOTAL may be `*`).
    private static func parse(_ value: String) -> (first: Int64?, total: Int64?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let first = parts[0] == "*" ? nil : parts[0].split(separator: "-").first.flatMap { Int64($0) }
        if parts[0] != "*", first == nil { return nil }
        return (first, Int64(parts[1]))
    }
}
