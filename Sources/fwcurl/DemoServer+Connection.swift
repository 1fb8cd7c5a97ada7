import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Connection

extension DemoServer {
    /// One accepted connection: its non-blocking socket, its read source and the bytes received but not
    /// yet parsed. Used on the server's queue only.
    final class Connection: @unchecked Sendable { // every `var`: the server's queue only
        /// How long a write may wait for a socket whose send buffer is full.
        private static let writeTimeoutMilliseconds: Int32 = 5_000
        /// The most unparsed input kept: a request beyond it is refused as malformed.
        private static let inputLimit = 1 << 20

        let descriptor: Int32
        let source: DispatchSourceRead
        var input: [UInt8] = []
        /// A reply is being prepared or delayed: later requests wait for it.
        var replying = false

        init(descriptor: Int32, queue: DispatchQueue) {
            self.descriptor = descriptor
            source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        }

        /// Appends everything readable now to `input`. False when the peer closed, the socket failed or
        /// the input grew past its limit.
        func readAvailable() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    input.append(contentsOf: buffer[0..<count])
                    guard input.count <= Self.inputLimit else { return false }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
            }
        }

        /// Writes all of `bytes`, waiting (bounded) when the socket's buffer is full. False on failure.
        func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if count > 0 {
                    offset += count
                } else if count < 0, errno == EINTR {
                    continue
                } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    guard poll(&entry, 1, Self.writeTimeoutMilliseconds) > 0 else { return false }
                } else {
                    return false
                }
            }
            return true
        }
    }
}
