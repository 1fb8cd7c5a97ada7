import Foundation

// DemoServer+HTTP: the little HTTP/1.1 the demo server speaks. It reads a request line, header fields and
// a Content-Length body, which is all the demo's URLSession requests send; anything else it does not
// understand (a Transfer-Encoding body, a line without a colon, a bad length) is answered with 400 and a
// close, never guessed at. Replies are exact bytes, so a route can also send a deliberately malformed one.

// MARK: - Request

extension DemoServer {
    /// One request as received.
    struct Request: Sendable {
        /// The method ("GET").
        let method: String
        /// The request target ("/hello").
        let target: String
        /// The header fields in wire order.
        let headers: [(name: String, value: String)]
        /// The body (empty without Content-Length).
        let body: [UInt8]

        /// True when the client asked to close the connection after this request.
        var wantsClose: Bool {
            headers.contains { $0.name.lowercased() == "connection" && $0.value.lowercased().contains("close") }
        }

        /// What the start of `input` holds.
        enum Parsed {
            /// Not a whole request yet.
            case incomplete
            /// Something the server does not understand.
            case malformed
            /// A request and the number of bytes it took.
            case complete(Request, consumed: Int)
        }

        /// Parses the request at the start of `input`.
        static func parse(_ input: [UInt8]) -> Parsed {
            guard let headEnd = endOfHead(in: input) else { return .incomplete }
            let lines = String(decoding: input[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
            let startLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
            guard startLine.count == 3, startLine[2].hasPrefix("HTTP/1.") else { return .malformed }
            var headers: [(name: String, value: String)] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { return .malformed }
                headers.append((String(line[..<colon]), line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)))
            }
            if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" }) { return .malformed }
            let lengths = headers.filter { $0.name.lowercased() == "content-length" }.map(\.value)
            guard lengths.count <= 1, let length = lengths.isEmpty ? 0 : Int(lengths[0]), length >= 0 else {
                return .malformed
            }
            let bodyStart = headEnd + 4
            guard input.count - bodyStart >= length else { return .incomplete }
            let request = Request(method: String(startLine[0]), target: String(startLine[1]), headers: headers,
                                  body: Array(input[bodyStart..<(bodyStart + length)]))
            return .complete(request, consumed: bodyStart + length)
        }

        /// The index of the blank line's CR LF CR LF, or nil.
        private static func endOfHead(in input: [UInt8]) -> Int? {
            guard input.count >= 4 else { return nil }
            return (0...(input.count - 4)).first { index in
                input[index] == 0x0D && input[index + 1] == 0x0A && input[index + 2] == 0x0D && input[index + 3] == 0x0A
            }
        }
    }
}

// MARK: - Reply

extension DemoServer {
    /// The exact bytes to send for one request, when, and whether to close afterwards.
    struct Reply: Sendable {
        /// Head and body, as sent.
        var bytes: [UInt8]
        /// Seconds to wait before sending (the demo's slow route).
        var delay: Double = 0
        /// Close the connection after sending.
        var closeAfter = false

        /// `200 OK` with a text body and its Content-Length.
        static func ok(_ text: String) -> Reply {
            ok(bytes: Array(text.utf8), contentType: "text/plain")
        }

        /// `200 OK` with `bytes` as the body and its Content-Length.
        static func ok(bytes: [UInt8], contentType: String = "application/octet-stream") -> Reply {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(bytes.count)\r\n\r\n"
            return Reply(bytes: Array(head.utf8) + bytes)
        }

        /// `200 OK` with a chunked body, one chunk per non-empty string, then `trailers`.
        static func chunked(_ chunks: [String], trailers: [(String, String)] = []) -> Reply {
            var text = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
            for chunk in chunks where !chunk.isEmpty {
                text += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n"
            }
            text += "0\r\n" + trailers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
            return Reply(bytes: Array(text.utf8))
        }

        /// `text` sent as it is (a deliberately malformed response), then a close.
        static func raw(_ text: String) -> Reply {
            Reply(bytes: Array(text.utf8), closeAfter: true)
        }

        /// `404 Not Found` without a body.
        static let notFound = Reply(bytes: Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8))

        /// `400 Bad Request` for a request the server does not understand.
        static let badRequest = Reply(
            bytes: Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8),
            closeAfter: true)
    }
}
