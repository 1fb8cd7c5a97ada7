import Foundation
import FWNetworking
import Testing

// Helpers shared by the multipart tests: reading a stream to its end in chunks of a chosen size, and
// temporary files removed at the end of a test.
enum MultipartTestSupport {
    /// Everything `stream` yields, read `chunk` bytes at a time (opened here); nil when a read fails.
    static func readAll(_ stream: InputStream, chunk: Int = 4096) -> [UInt8]? {
        stream.open()
        defer { stream.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = stream.read(&buffer, maxLength: chunk)
            if count == 0 { return bytes }
            if count < 0 { return nil }
            bytes += buffer[..<count]
        }
    }

    /// A fresh temporary directory; `body` runs with it, then it is removed.
    static func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("fwnetworking-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// The boundary named by a multipart Content-Type.
    static func boundary(of request: URLRequest) throws -> String {
        let contentType = try #require(request.value(forHTTPHeaderField: "Content-Type"))
        let prefix = "multipart/form-data; boundary="
        try #require(contentType.hasPrefix(prefix))
        return String(contentType.dropFirst(prefix.count))
    }
}
