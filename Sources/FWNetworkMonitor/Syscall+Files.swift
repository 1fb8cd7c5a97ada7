// Reading small files and symbolic links (the sysfs attributes of network interfaces), through the
// chokepoint's rules (Syscall.swift).

import FWLoop
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Syscall {
    /// The first `limit` bytes of the file at `path` (all of it when shorter).
    static func readFile(_ path: String, limit: Int) throws(IOError) -> [UInt8] {
        let fd = try runNeverBlocking("open") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var filled = 0
        while filled < limit {
            let count = try runNeverBlocking("read") {
                bytes.withUnsafeMutableBytes { buffer in
                    Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
                }
            }
            if count == 0 {
                break
            }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// The target of the symbolic link at `path`, as stored in the link.
    static func readLink(_ path: String) throws(IOError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let count = try runNeverBlocking("readlink") {
            buffer.withUnsafeMutableBufferPointer { raw in
                raw.baseAddress.map { Glibc.readlink(path, $0, raw.count) } ?? 0
            }
        }
        return String(decoding: buffer[..<min(count, buffer.count)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
