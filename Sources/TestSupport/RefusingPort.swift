#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - RefusingPort

/// A port on 127.0.0.1 that refuses connections for as long as this value is open: a socket bound to it
/// without `SO_REUSEADDR` and never listening. A closed port found by binding and closing could be
/// taken by a server of a test running alongside; this one cannot. Call `close()` when done (a
/// `defer` keeps the socket open until then).
public final class RefusingPort: Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try Self.bindLoopback()
    }

    /// Frees the port.
    public func close() {
        Glibc.close(descriptor)
    }

    /// A TCP socket bound to 127.0.0.1 and an ephemeral port the kernel chose: the descriptor and port.
    static func bindLoopback() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError.serverUnavailable("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw TestSupportError.serverUnavailable("bind: \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
