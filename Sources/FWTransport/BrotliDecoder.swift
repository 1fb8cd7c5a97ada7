// MARK: - BrotliDecoder
//
// Undoes `Content-Encoding: br` (RFC 7932) as the body streams in, through libbrotlidec loaded at run time
// (`BrotliLibrary`): one stage of a `ContentDecoder`, with the zlib stage's contract. `push` takes an encoded
// piece; each `nextSlice` decodes into at most `ContentDecoder.sliceSize` bytes; the library says whether it
// holds more output (NEEDS_MORE_OUTPUT) or wants more input (NEEDS_MORE_INPUT), so a piece that expands a
// thousandfold comes out in bounded slices. SUCCESS ends the stream: a byte after it is an error, as is a
// stream that has not reached it when the body ends. Not Sendable: it belongs to one connection's loop.

/// A brotli decoder, when libbrotlidec is installed.
final class BrotliDecoder: DecodingStage {
    typealias Failure = ContentDecoder.Failure

    private let library: BrotliLibrary
    private let state: OpaquePointer
    private var output = [UInt8](repeating: 0, count: ContentDecoder.sliceSize)
    /// The encoded piece being decoded, and how much of it the library took.
    private var input: [UInt8] = []
    private var inputOffset = 0
    /// The library said it holds more output than the last slice could take.
    private var holdsOutput = false
    /// Some byte was pushed / the stream reached its end.
    private var started = false
    private var finished = false

    /// A decoder from `library` (the process's by default); nil when the library is not installed or
    /// cannot create a decoder.
    init?(library: BrotliLibrary? = BrotliLibrary.shared) {
        guard let library, let state = library.createInstance(nil, nil, nil) else { return nil }
        self.library = library
        self.state = state
    }

    deinit {
        library.destroyInstance(state)
    }

    var hasPendingOutput: Bool {
        inputOffset < input.count || holdsOutput
    }

    func push(_ piece: [UInt8]) throws(Failure) {
        precondition(!hasPendingOutput, "push(\(piece.count) bytes) before the previous piece was decoded")
        guard !piece.isEmpty else { return }
        guard !finished else { throw Failure(description: "bytes after the end of the brotli body") }
        input = piece
        inputOffset = 0
        started = true
    }

    func nextSlice() throws(Failure) -> [UInt8] {
        guard hasPendingOutput else { return [] }
        var produced = 0
        let result = input.withUnsafeBufferPointer { inputBuffer -> Int32 in
            var availableIn = inputBuffer.count - inputOffset
            var nextIn = inputBuffer.baseAddress.map { $0 + inputOffset }
            let result = output.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                var availableOut = outputBuffer.count
                var nextOut = outputBuffer.baseAddress
                let result = library.decompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                produced = outputBuffer.count - availableOut
                return result
            }
            inputOffset = inputBuffer.count - availableIn
            return result
        }
        holdsOutput = result == BrotliLibrary.resultNeedsMoreOutput
        switch result {
        case BrotliLibrary.resultSuccess:
            finished = true
            if inputOffset < input.count { throw Failure(description: "bytes after the end of the brotli body") }
        case BrotliLibrary.resultNeedsMoreInput, BrotliLibrary.resultNeedsMoreOutput:
            break
        default:
            throw Failure(description: "the brotli body is corrupt (\(library.errorDescription(state)))")
        }
        if !hasPendingOutput {
            input = []
            inputOffset = 0
        }
        return Array(output[..<produced])
    }

    func finish() throws(Failure) {
        guard finished || !started else { throw Failure(description: "the brotli body ended early") }
    }
}
