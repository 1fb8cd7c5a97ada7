// Sec-WebSocket-Extensions (RFC 6455 §9.1), read from every field of that name:
//
//   extension-list = 1#extension
//   extension      = extension-token *( ";" extension-param )
//   extension-param = token [ "=" (token | quoted-string) ]
//
// with optional whitespace around the delimiters, empty list elements skipped (RFC 9110 §5.6.1), and a
// quoted value required to be a token once unescaped. A byte scanner over each field's raw value.

/// The extensions a handshake response names, in order.
struct WebSocketExtensionList {
    /// One extension and its parameters (value nil for a parameter without "=").
    struct Element {
        var name: String
        var parameters: [(name: String, value: String?)]
    }

    private(set) var elements: [Element] = []

    /// The extensions of every `Sec-WebSocket-Extensions` field; `malformedExtensions` when a value
    /// breaks the grammar.
    init(_ headers: HTTPHeaders) throws(WebSocketHandshakeError) {
        for index in 0..<headers.count where headers.nameMatches(at: index, "Sec-WebSocket-Extensions") {
            var scanner = Scanner(bytes: headers.rawValue(at: index))
            while let element = try scanner.nextElement() {
                elements.append(element)
            }
        }
    }

    /// The permessage-deflate parameters the response agrees to: nil when it names no extension; an error
    /// when it names anything but permessage-deflate once, or permessage-deflate without `offer`.
    func agreeOnDeflate(offer: WebSocketDeflateOffer?) throws(WebSocketHandshakeError) -> WebSocketDeflateParameters? {
        guard let first = elements.first else { return nil }
        guard let offer, elements.count == 1, first.name.lowercased() == "permessage-deflate" else {
            throw .unexpectedExtension
        }
        return try WebSocketDeflateParameters(accepting: offer, response: first.parameters)
    }
}

// MARK: - Scanner

/// Reads extension-list elements from one field value.
private struct Scanner {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// The next element, or nil at the end of the value.
    mutating func nextElement() throws(WebSocketHandshakeError) -> WebSocketExtensionList.Element? {
        while true {
            skipWhitespace()
            guard index < bytes.endIndex else { return nil }
            if !take(ASCII.comma) {
                break
            }
        }
        var element = WebSocketExtensionList.Element(name: try token(), parameters: [])
        while true {
            skipWhitespace()
            guard take(ASCII.semicolon) else { break }
            skipWhitespace()
            let name = try token()
            skipWhitespace()
            guard take(ASCII.equals) else {
                element.parameters.append((name, nil))
                continue
            }
            skipWhitespace()
            element.parameters.append((name, index < bytes.endIndex && bytes[index] == ASCII.quote
                ? try quotedToken() : try token()))
        }
        guard index == bytes.endIndex || take(ASCII.comma) else { throw .malformedExtensions }
        return element
    }

    /// One or more tchar.
    private mutating func token() throws(WebSocketHandshakeError) -> String {
        let start = index
        while index < bytes.endIndex, ByteClass.token.contains(bytes[index]) {
            index += 1
        }
        guard index > start else { throw .malformedExtensions }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted-string whose unescaped content is a token.
    private mutating func quotedToken() throws(WebSocketHandshakeError) -> String {
        index += 1
        var content: [UInt8] = []
        while index < bytes.endIndex {
            var byte = bytes[index]
            index += 1
            if byte == ASCII.quote {
                guard !content.isEmpty, ByteClass.token.containsAll(content) else { throw .malformedExtensions }
                return String(decoding: content, as: UTF8.self)
            }
            if byte == ASCII.backslash {
                guard index < bytes.endIndex else { break }
                byte = bytes[index]
                index += 1
            }
            content.append(byte)
        }
        throw .malformedExtensions
    }

    private mutating func skipWhitespace() {
        while index < bytes.endIndex, ASCII.isWhitespace(bytes[index]) {
            index += 1
        }
    }

    /// Consumes `byte` when it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.endIndex, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
