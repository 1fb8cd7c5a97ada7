// The bytes of one message being reassembled, checked as they arrive: against the size limit, and (text)
// as UTF-8, so a violation is reported at the piece that proves it, not at the end of the message.

/// One data message in progress: its kind and its (unmasked, decompressed) bytes so far.
struct WebSocketMessageBuffer {
    /// True for a text message (opcode 1), false for binary.
    let isText: Bool
    /// True when the first frame had RSV1 set: the payload goes through the inflater first.
    let isCompressed: Bool
    private let maxSize: Int
    private var bytes: [UInt8] = []
    private var validator = WebSocketUTF8Validator()

    /// An empty message started by a frame with `header`.
    init(header: WebSocketFrameHeader, maxSize: Int) {
        isText = header.opcode == .text
        isCompressed = header.isCompressed
        self.maxSize = maxSize
    }

    /// Checks, when a frame of an uncompressed message starts, that its payload fits; reserves room for
    /// it when it is the first frame.
    mutating func expectFrame(payloadLength: Int) throws(WebSocketError) {
        guard !isCompressed else { return }
        guard payloadLength <= maxSize - bytes.count else { throw .messageTooBig }
        if bytes.isEmpty {
            bytes.reserveCapacity(payloadLength)
        }
    }

    /// Appends message bytes, unmasking them with `maskingKey` from `payloadOffset` first. The error is
    /// the one at the earliest byte: text is checked up to the limit before `messageTooBig`, so where a
    /// piece is cut does not change which error a message gets.
    mutating func append(
        _ piece: UnsafeRawBufferPointer,
        maskingKey: WebSocketMaskingKey? = nil,
        payloadOffset: Int = 0
    ) throws(WebSocketError) {
        let fitting = min(piece.count, maxSize - bytes.count)
        let start = bytes.count
        bytes.append(contentsOf: piece.prefix(upTo: fitting))
        let isText = isText
        if maskingKey != nil || isText {
            var validator = validator
            let valid = bytes.withUnsafeMutableBytes { storage in
                let appended = UnsafeMutableRawBufferPointer(rebasing: storage[start...])
                maskingKey?.apply(to: appended, payloadOffset: payloadOffset)
                return !isText || validator.validate(UnsafeRawBufferPointer(appended))
            }
            guard valid else { throw .invalidUTF8 }
            self.validator = validator
        }
        guard fitting == piece.count else { throw .messageTooBig }
    }

    /// The complete message as an event; `invalidUTF8` when a text message ends inside a scalar.
    func finish() throws(WebSocketError) -> WebSocketEvent {
        guard isText else { return .binary(bytes) }
        guard validator.isComplete else { throw .invalidUTF8 }
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
