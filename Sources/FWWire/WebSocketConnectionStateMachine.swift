// WebSocketConnectionStateMachine: one WebSocket connection after the handshake, without I/O. Bytes and
// end of stream go in; events come out of `next()`, one at a time, as soon as they are known; the owner
// writes what the events and `close(_:)` tell it to (with WebSocketFrameEncoder).
//
// The close handshake (RFC 6455 §5.5.1, §7.1):
//
//   open ──close(_:) returns the close to write──▶ closeSent
//   open ──the peer's close, reported as .closeReceived──▶ closeReceived
//   closeReceived ──close(_:) returns the echo of the peer's code, once──▶ closed
//   closeSent ──the peer's close, reported as .closeReceived──▶ closed
//   closeSent: data messages the peer sent before it saw our close are still decoded, checked and reported
//              (RFC 6455 §1.4: only a received close ends what is read); pings and pongs are dropped; the
//              peer's close ends it
//   closeReceived, closed: nothing more is read (bytes after a close frame are ignored)
//   end of stream: in open or closeSent ──▶ unexpectedEndOfStream (1006); in closeReceived or closed: fine
//   any error ──▶ failed: rethrown forever; close(_:) returns one close frame for it unless a close was
//                 already sent or the stream ended
//
// Reading, on the frame decoder's outputs (frame rules are WebSocketFrameDecoder's):
//
//   header   text/binary, no message open ──▶ message opens (compressed when RSV1)
//            text/binary, a message open  ──▶ expectedContinuation (1002)
//            continuation, no message open ──▶ unexpectedContinuation (1002)
//            then, for an uncompressed message: the size it would reach is checked (1009)
//            close/ping/pong ──▶ control payload collected (≤ 125 bytes; allowed between fragments)
//   payload  message ──▶ unmasked, inflated when compressed, checked (text: UTF-8 as it arrives, 1007;
//            compressed: the size as it inflates, 1009; the earlier byte's error wins) and appended
//            control ──▶ collected
//   end      a FIN message frame ──▶ .text / .binary, message closes;  ping ──▶ .ping (write that pong);
//            pong ──▶ .pong;  close ──▶ payload checked (1002, 1007) ──▶ .closeReceived
//
// One `[UInt8]` holds the bytes fed and not yet decoded; the decoder consumes every byte it is given (it
// keeps partial headers in its state), and payload is copied once, into the message being assembled.

/// The protocol core of one WebSocket connection: feed received bytes, pull events, ask for closes.
///
/// Not Sendable: it may hold an inflater, whose zlib stream belongs to one connection's loop.
public struct WebSocketConnectionStateMachine {
    private enum State {
        case open
        case closeSent
        case closeReceived(WebSocketCloseFrame)
        case closed
        case failed(WebSocketError, canSendClose: Bool)
    }

    private var state = State.open
    private var decoder: WebSocketFrameDecoder
    private let limits: WebSocketLimits
    private let inflater: (any WebSocketMessageInflater)?
    /// The header of the frame whose payload is being read.
    private var frame = WebSocketFrameHeader(isFinal: true, opcode: .continuation, payloadLength: 0)
    /// The data message in progress, between its first frame's header and its last frame's end.
    private var message: WebSocketMessageBuffer?
    /// The payload of the control frame being read.
    private var control: [UInt8] = []
    /// Masked compressed payload, unmasked here before it is inflated (servers only; reused).
    private var scratch: [UInt8] = []
    /// Received bytes; those before `readIndex` are decoded.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var endOfStream = false

    /// A connection in the open state, reading what `role`'s peer sends. With an `inflater`
    /// (permessage-deflate negotiated), messages whose first frame has RSV1 set are inflated through it.
    public init(
        role: WebSocketRole = .client,
        limits: WebSocketLimits = WebSocketLimits(),
        inflater: (any WebSocketMessageInflater)? = nil
    ) {
        decoder = WebSocketFrameDecoder(role: role, limits: limits, allowsCompression: inflater != nil)
        self.limits = limits
        self.inflater = inflater
    }

    // MARK: Inputs

    /// Appends received bytes (copied). Ignored after an error and once the peer's close was read.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard acceptsInput else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes, keeping the array itself when nothing earlier is left undecoded. Ignored
    /// after an error and once the peer's close was read.
    public mutating func feed(_ bytes: [UInt8]) {
        guard acceptsInput else { return }
        if readIndex == buffer.count {
            buffer = bytes
            readIndex = 0
        } else {
            compact()
            buffer.append(contentsOf: bytes)
        }
    }

    /// The peer closed its sending side.
    public mutating func feedEndOfStream() {
        endOfStream = true
    }

    /// Asks to close with `frame` (a code 1005, 1006 or 1015 is sent as an empty close). Returns the close
    /// frame to write, or nil when none may be written:
    /// - open: `frame`; then only the peer's close is awaited;
    /// - after `.closeReceived` (no close sent yet): the echo of the peer's code, whatever `frame` says;
    /// - after an error: `frame` (give it `error.closeCode`) once, unless a close was already sent or the
    ///   stream ended;
    /// - once a close was sent: nil.
    public mutating func close(_ frame: WebSocketCloseFrame) -> WebSocketCloseFrame? {
        switch state {
        case .open:
            state = .closeSent
            return frame
        case .closeReceived(let received):
            state = .closed
            return WebSocketCloseFrame(code: received.code)
        case .failed(let error, let canSendClose):
            state = .failed(error, canSendClose: false)
            return canSendClose ? frame : nil
        case .closeSent, .closed:
            return nil
        }
    }

    // MARK: Outputs

    /// True until a close is sent or received: data frames, pings and pongs may be written.
    public var isOpen: Bool {
        if case .open = state {
            return true
        }
        return false
    }

    /// True when the close handshake completed both ways (the owner may close the TCP connection; RFC 6455
    /// §7.1.1 has the server close it first).
    public var isClosed: Bool {
        if case .closed = state {
            return true
        }
        return false
    }

    /// Bytes received but not decoded yet.
    public var bufferedByteCount: Int {
        buffer.count - readIndex
    }

    /// The next event, or nil when more input is needed (or nothing more will be read).
    /// Errors are sticky: after a throw, every later call throws the same error.
    public mutating func next() throws(WebSocketError) -> WebSocketEvent? {
        if case .failed(let error, _) = state {
            throw error
        }
        do throws(WebSocketError) {
            return try advance()
        } catch {
            let closeSent = if case .closeSent = state { true } else { false }
            state = .failed(error, canSendClose: !closeSent && !error.isPrematureEnd)
            throw error
        }
    }

    // MARK: Reading

    private mutating func advance() throws(WebSocketError) -> WebSocketEvent? {
        switch state {
        case .closeReceived, .closed:
            return nil
        case .open, .closeSent:
            break
        case .failed:
            preconditionFailure("advance() in state \(state)")
        }
        while true {
            var decoder = decoder
            let start = readIndex
            let output = try buffer.withBytes { (bytes) throws(WebSocketError) in
                try decoder.decode(bytes.suffix(from: start))
            }
            self.decoder = decoder
            switch output {
            case .needMoreInput:
                readIndex = buffer.count
                guard !endOfStream else { throw .unexpectedEndOfStream }
                return nil
            case .header(let header, let consumed):
                readIndex += consumed
                try frameStarted(header)
            case .payload(let range):
                try payloadArrived(from: start + range.lowerBound, count: range.count)
                readIndex = start + range.upperBound
            case .frameEnd:
                if let event = try frameEnded() {
                    return event
                }
            }
        }
    }

    /// Applies the message-sequence rules to a new frame.
    private mutating func frameStarted(_ header: WebSocketFrameHeader) throws(WebSocketError) {
        frame = header
        switch header.opcode {
        case .text, .binary:
            guard message == nil else { throw .expectedContinuation }
            message = WebSocketMessageBuffer(header: header, maxSize: limits.maxMessageSize)
        case .continuation:
            guard message != nil else { throw .unexpectedContinuation }
        default:
            control = []
            control.reserveCapacity(header.payloadLength)
            return
        }
        try withMessage { (message) throws(WebSocketError) in
            try message.expectFrame(payloadLength: header.payloadLength)
        }
    }

    /// Takes the `count` payload bytes at `offset` of the buffer into the frame's message or control
    /// payload (unmasked on the way).
    private mutating func payloadArrived(from offset: Int, count: Int) throws(WebSocketError) {
        let input = buffer
        let key = frame.maskingKey
        let payloadOffset = decoder.payloadOffset - count
        try input.withBytes { (bytes) throws(WebSocketError) in
            let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
            if frame.opcode.isControl {
                let start = control.count
                control.append(contentsOf: piece)
                control.withUnsafeMutableBytes { storage in
                    let appended = UnsafeMutableRawBufferPointer(rebasing: storage[start...])
                    key?.apply(to: appended, payloadOffset: payloadOffset)
                }
            } else {
                try messagePayload(piece, maskingKey: key, payloadOffset: payloadOffset)
            }
        }
    }

    /// Appends a piece of a data frame's payload to the message, through the inflater when compressed.
    private mutating func messagePayload(
        _ piece: UnsafeRawBufferPointer,
        maskingKey: WebSocketMaskingKey?,
        payloadOffset: Int
    ) throws(WebSocketError) {
        let inflater = inflater
        var scratch = scratch
        self.scratch = []
        defer { self.scratch = scratch }
        try withMessage { (message) throws(WebSocketError) in
            guard message.isCompressed, let inflater else {
                try message.append(piece, maskingKey: maskingKey, payloadOffset: payloadOffset)
                return
            }
            guard let maskingKey else {
                try inflater.inflate(piece) { (slice) throws(WebSocketError) in try message.append(slice) }
                return
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: piece)
            scratch.withUnsafeMutableBytes { maskingKey.apply(to: $0, payloadOffset: payloadOffset) }
            try scratch.withBytes { (unmasked) throws(WebSocketError) in
                try inflater.inflate(unmasked) { (slice) throws(WebSocketError) in try message.append(slice) }
            }
        }
    }

    /// The frame's payload is complete: reports a finished message or a control frame.
    private mutating func frameEnded() throws(WebSocketError) -> WebSocketEvent? {
        if frame.opcode.isControl {
            return try controlFrameEnded()
        }
        guard frame.isFinal else { return nil }
        let inflater = inflater
        let event = try withMessage { (message) throws(WebSocketError) in
            if message.isCompressed, let inflater {
                try inflater.finishMessage { (slice) throws(WebSocketError) in try message.append(slice) }
            }
            return try message.finish()
        }
        message = nil
        return event
    }

    /// Reports a ping or pong (not after a close was sent) or the peer's close.
    private mutating func controlFrameEnded() throws(WebSocketError) -> WebSocketEvent? {
        let payload = control
        control = []
        switch frame.opcode {
        case .ping:
            guard case .open = state else { return nil }
            return .ping(payload)
        case .pong:
            guard case .open = state else { return nil }
            return .pong(payload)
        default:
            let received = try WebSocketCloseFrame(payload: payload)
            if case .open = state {
                state = .closeReceived(received)
            } else {
                state = .closed
            }
            message = nil
            buffer = []
            readIndex = 0
            return .closeReceived(received)
        }
    }

    // MARK: Buffer and helpers

    /// Runs `body` on the message in progress, moved out of `self` meanwhile so its storage stays
    /// uniquely referenced.
    private mutating func withMessage<Value>(
        _ body: (inout WebSocketMessageBuffer) throws(WebSocketError) -> Value
    ) throws(WebSocketError) -> Value {
        guard var current = message else {
            preconditionFailure("data frame payload without a message in state \(state)")
        }
        message = nil
        defer { message = current }
        return try body(&current)
    }

    /// False after an error and once nothing more is read; a precondition failure after end of stream.
    private var acceptsInput: Bool {
        guard !endOfStream else {
            preconditionFailure("feed(_:) after end of stream in state \(state)")
        }
        switch state {
        case .open, .closeSent: return true
        case .closeReceived, .closed, .failed: return false
        }
    }

    /// Drops the decoded bytes from the front of the buffer.
    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if readIndex > 0 {
            buffer.removeSubrange(0..<readIndex)
        }
        readIndex = 0
    }
}
