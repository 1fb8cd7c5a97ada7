// LoopbackHTTPServer+Reply: what a handler answers — exact bytes plus how to send them — and builders
// for the usual well-formed and deliberately malformed responses.

// MARK: - Reply

extension LoopbackHTTPServer {
    /// The bytes a handler wants sent for one request, and how to send them.
    public struct Reply: Sendable {
        /// Exact bytes to send (head + body).
        public var bytes: [UInt8]
        /// Whether to close the connection after writing.
        public var closeAfter: Bool
        /// Seconds to wait before writing (for queueing tests).
        public var delay: Double

        /// A reply of exact bytes.
        public init(bytes: [UInt8], closeAfter: Bool = false, delay: Double = 0) {
            self.bytes = bytes
            self.closeAfter = closeAfter
            self.delay = delay
        }

        // MARK: Builders

        /// Builds a well-formed response with Content-Length (and Date-less minimal headers).
        ///
        /// `headers` follow `Content-Type` and `Content-Length`; giving `Content-Length` or
        /// `Transfer-Encoding` there replaces the computed length, and `Connection: close` there also
        /// sets `closeAfter`.
        public static func ok(
            _ body: String, contentType: String = "text/plain", status: Int = 200,
            headers: [(String, String)] = []
        ) -> Reply {
            response(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(body.utf8))
        }

        /// A response with the given status and body, with Content-Length unless the status forbids a
        /// body (1xx, 204, 304) or `headers` frame it themselves. `Connection: close` in `headers` sets
        /// `closeAfter`.
        public static func status(_ code: Int, body: [UInt8] = [], headers: [(String, String)] = []) -> Reply {
            response(status: code, headers: headers, body: body)
        }

        /// A chunked response with the given chunks (and optional trailers).
        ///
        /// Each non-empty chunk is sent as one chunk (hex size in lower case); empty strings are skipped
        /// because an empty chunk would end the body.
        public static func chunked(
            _ chunks: [String], trailers: [(String, String)] = [], status: Int = 200
        ) -> Reply {
            var text = statusLine(status) + "Transfer-Encoding: chunked\r\n\r\n"
            for chunk in chunks where !chunk.isEmpty {
                text += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n"
            }
            text += "0\r\n"
            for (name, value) in trailers {
                text += "\(name): \(value)\r\n"
            }
            text += "\r\n"
            return Reply(bytes: Array(text.utf8))
        }

        /// Raw bytes as given (for malformed responses).
        public static func raw(_ text: String, closeAfter: Bool = true) -> Reply {
            Reply(bytes: Array(text.utf8), closeAfter: closeAfter)
        }

        // MARK: Helpers

        /// Head with Content-Length where allowed, then `body`.
        private static func response(status: Int, headers: [(String, String)], body: [UInt8]) -> Reply {
            let names = Set(headers.map { $0.0.lowercased() })
            let framedByHeaders = names.contains("content-length") || names.contains("transfer-encoding")
            let bodyless = (100..<200).contains(status) || status == 204 || status == 304
            var head = statusLine(status)
            for (name, value) in headers {
                head += "\(name): \(value)\r\n"
            }
            if !framedByHeaders, !bodyless {
                head += "Content-Length: \(body.count)\r\n"
            }
            head += "\r\n"
            let closes = headers.contains { name, value in
                name.lowercased() == "connection" && value.lowercased().contains("close")
            }
            return Reply(bytes: Array(head.utf8) + body, closeAfter: closes)
        }

        /// `HTTP/1.1 CODE REASON\r\n`.
        private static func statusLine(_ code: Int) -> String {
            "HTTP/1.1 \(code) \(reasonPhrases[code] ?? "Status \(code)")\r\n"
        }

        private static let reasonPhrases: [Int: String] = [
            100: "Continue", 101: "Switching Protocols", 103: "Early Hints",
            200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information",
            204: "No Content", 205: "Reset Content", 206: "Partial Content",
            300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
            304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
            400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 407: "Proxy Authentication Required", 408: "Request Timeout",
            409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
            413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type",
            416: "Range Not Satisfiable", 417: "Expectation Failed", 421: "Misdirected Request",
            422: "Unprocessable Content", 426: "Upgrade Required", 429: "Too Many Requests",
            500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
        ]
    }
}
