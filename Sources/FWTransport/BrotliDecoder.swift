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
    /// The encoded piece being decoded, and the output slice.
    private var buffers = StageBuffers()
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
        buffers.hasInput || holdsOutput
    }

    func push(_ piece: [UInt8]) throws(Failure) {
        precondition(!hasPendingOutput, "push(\(piece.count) bytes) before the previous piece was decoded")
        guard !piece.isEmpty else { return }
        guard !finished else { throw Failure(description: "bytes after the end of the brotli body") }
        buffers.take(piece)
        started = true
    }

    func nextSlice() throws(Failure) -> [UInt8] {
        guard hasPendingOutput else { return [] }
        let (result, slice) = buffers.step { input, output in
            var (availableIn, nextIn) = (input.count, input.baseAddress)
            var (availableOut, nextOut) = (output.count, output.baseAddress)
            let result = library.decompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            return (input.count - availableIn, output.count - availableOut, result)
        }
        holdsOutput = result == BrotliLibrary.resultNeedsMoreOutput
        switch result {
        case BrotliLibrary.resultSuccess:
            finished = true
            if buffers.hasInput { throw Failure(description: "bytes after the end of the brotli body") }
        case BrotliLibrary.resultNeedsMoreInput, BrotliLibrary.resultNeedsMoreOutput:
            break
        default:
            throw Failure(description: "the brotli body is corrupt (\(library.errorDescription(state)))")
        }
        if !hasPendingOutput { buffers.release() }
        return slice
    }

    func finish() throws(Failure) {
        guard finished || !started else { throw Failure(description: "the brotli body ended early") }
    }
}
