// Small helpers for working on contiguous bytes with typed throws.

// MARK: - Slicing and trimming

extension UnsafeRawBufferPointer {
    /// The bytes from `start` to the end, as a buffer indexed from zero.
    @inline(__always)
    func suffix(from start: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[start...])
    }

    /// The first `count` bytes, as a buffer indexed from zero.
    @inline(__always)
    func prefix(upTo count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[..<count])
    }

    /// The bytes without leading and trailing SP / HTAB, as a buffer indexed from zero.
    func trimmingWhitespace() -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: self[whitespaceTrimmed(from: 0)])
    }

    /// Where the bytes from `start` on lie without their leading and trailing SP / HTAB.
    func whitespaceTrimmed(from start: Int) -> Range<Int> {
        var lower = start
        var upper = count
        while lower < upper, ASCII.isWhitespace(self[lower]) { lower += 1 }
        while upper > lower, ASCII.isWhitespace(self[upper - 1]) { upper -= 1 }
        return lower..<upper
    }
}

extension ArraySlice<UInt8> {
    /// The slice without leading and trailing SP / HTAB.
    func trimmingWhitespace() -> ArraySlice<UInt8> {
        var lower = startIndex
        var upper = endIndex
        while lower < upper, ASCII.isWhitespace(self[lower]) { lower += 1 }
        while upper > lower, ASCII.isWhitespace(self[upper - 1]) { upper -= 1 }
        return self[lower..<upper]
    }
}

// MARK: - Typed-throws access

extension Array<UInt8> {
    /// `withUnsafeBytes` for a body with a typed error (the standard library's version erases it).
    func withBytes<Value, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let outcome: Result<Value, Failure> = withUnsafeBytes { raw in
            do throws(Failure) {
                return .success(try body(raw))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
