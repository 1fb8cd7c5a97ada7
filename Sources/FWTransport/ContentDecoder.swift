import FWWire

// MARK: - ContentDecoder
//
// Undoes what a response's body carries besides its framing, as the body streams in: the transfer codings
// other than chunked (always: they are the hop's, RFC 9112 §7), then the content coding (when the request
// asked). It is a chain of stages, each a zlib or brotli decoder, in decoding order: the last transfer coding
// applied first, the content coding last. Bytes pushed go to the first stage; `nextSlice` drains the stage
// nearest the output first and feeds a slice of an earlier stage to the next one only when everything after
// it is used up, so each stage holds at most one slice of its input and no output is ever larger than
// `sliceSize`, whatever each stage inflates to (a bomb inside a bomb included).
//
//   push(piece) ──▶ stage 0 ──slice──▶ stage 1 ──slice──▶ … ──slice──▶ nextSlice()
//   finish(): every stage must have seen a complete stream (or no byte at all)
//
// Not Sendable: it belongs to one connection's loop.

/// The decoders of one response body, in decoding order.
final class ContentDecoder {
    /// Why decoding stopped.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The most decoded bytes one `nextSlice` returns.
    static let sliceSize = 64 * 1024

    /// The stages in decoding order; never empty.
    private let stages: [any DecodingStage]

    /// The decoders for a response whose Transfer-Encoding applied `transferCodings` (besides chunked, in the
    /// order applied) and whose Content-Encoding is `contentEncoding` (nil: not to be decoded); nil when there
    /// is nothing to decode. A content coding we do not decode (identity, several codings, zstd, br without
    /// libbrotlidec, ...) is left as it is.
    init?(transferCodings: [TransferCoding], contentEncoding: String?) {
        var stages: [any DecodingStage] = transferCodings.reversed().map { ZlibDecoder(deflate: $0 == .deflate) }
        if let contentEncoding, let stage = Self.stage(contentEncoding: contentEncoding) {
            stages.append(stage)
        }
        guard !stages.isEmpty else { return nil }
        self.stages = stages
    }

    /// The decoder of a body whose Content-Encoding is `encoding`, or nil when it is not one we decode.
    convenience init?(contentEncoding encoding: String) {
        self.init(transferCodings: [], contentEncoding: encoding)
    }

    /// Whether the pushed pieces may still yield decoded bytes: call `nextSlice` until it is false, and only
    /// then `push` the next piece.
    var hasPendingOutput: Bool {
        stages.contains { $0.hasPendingOutput }
    }

    /// Takes the next encoded piece of the body (the previous one must be used up).
    func push(_ piece: [UInt8]) throws(Failure) {
        try stages[0].push(piece)
    }

    /// At most `sliceSize` decoded bytes of the pushed input (possibly none).
    func nextSlice() throws(Failure) -> [UInt8] {
        while let index = stages.lastIndex(where: { $0.hasPendingOutput }) {
            let slice = try stages[index].nextSlice()
            if index == stages.count - 1 { return slice }
            try stages[index + 1].push(slice)
        }
        return []
    }

    /// The body ended: every stage must have seen a complete stream.
    func finish() throws(Failure) {
        for stage in stages { try stage.finish() }
    }

    /// The stage for a Content-Encoding value, or nil when we do not decode it.
    private static func stage(contentEncoding encoding: String) -> (any DecodingStage)? {
        switch encoding.lowercased().trimmingOWS {
        case "gzip", "x-gzip": ZlibDecoder(deflate: false)
        case "deflate": ZlibDecoder(deflate: true)
        case "br": BrotliDecoder()
        default: nil
        }
    }
}

// MARK: - DecodingStage

/// One decoder of a `ContentDecoder`: takes encoded pieces, returns decoded slices of at most
/// `ContentDecoder.sliceSize` bytes.
protocol DecodingStage: AnyObject {
    /// Whether the pushed piece may still yield decoded bytes.
    var hasPendingOutput: Bool { get }
    /// Takes the next encoded piece (the previous one must be used up; an empty piece is ignored).
    func push(_ piece: [UInt8]) throws(ContentDecoder.Failure)
    /// At most `ContentDecoder.sliceSize` decoded bytes of the pushed piece (possibly none).
    func nextSlice() throws(ContentDecoder.Failure) -> [UInt8]
    /// The input ended: it must have been a complete stream, or nothing at all.
    func finish() throws(ContentDecoder.Failure)
}

// MARK: - StageBuffers

/// A stage's encoded piece (and how much of it its codec took) and its output slice: what every stage does
/// around its codec's one call.
struct StageBuffers {
    private var input: [UInt8] = []
    private var offset = 0
    private var output = [UInt8](repeating: 0, count: ContentDecoder.sliceSize)

    /// Some of the piece is left for the codec.
    var hasInput: Bool { offset < input.count }

    /// The next piece (the previous one must be used up).
    mutating func take(_ piece: [UInt8]) {
        input = piece
        offset = 0
    }

    /// Runs `codec` once over the input left and a free slice; it says how many input bytes it consumed and
    /// output bytes it produced, with a status that comes back with the slice.
    mutating func step<Status>(
        _ codec: (UnsafeBufferPointer<UInt8>, UnsafeMutableBufferPointer<UInt8>)
            -> (consumed: Int, produced: Int, status: Status)
    ) -> (status: Status, slice: [UInt8]) {
        let start = offset
        let (consumed, produced, status) = input.withUnsafeBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                codec(UnsafeBufferPointer(rebasing: inputBuffer[start...]), outputBuffer)
            }
        }
        offset += consumed
        return (status, Array(output[..<produced]))
    }

    /// Lets go of the piece once the stage has nothing pending.
    mutating func release() {
        input = []
        offset = 0
    }
}

private extension String {
    var trimmingOWS: Substring {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return view
    }
}
