import Foundation
import FWNetworking
import FWTLS
import Testing
import TestSupport

// Multipart uploads through FWURLSession to a real server that parses them in Python: fields, two
// files and a stream part round-trip with their names, file names, types and SHA-256; and a large file
// streamed from disk (64 MiB always; 1 GiB with FWNETWORKING_UPLOAD_1GIB=1) whose exact length and hash
// arrive, with the growth of this process's peak RSS measured and printed. The bound on memory is
// asserted in FwcurlFormTests, on a process of its own: here every suite of the test run shares the
// process, and a neighbour's buffers land in the same peak (over 100 MiB in a full run).
@Suite struct MultipartUploadTests {
    // MARK: Round trip

    @Test func fieldsFilesAndAStreamRoundTripThroughEmailParser() async throws {
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let directory = NSTemporaryDirectory() + "/fw-multipart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SplitMix64(seed: 2)
        let text = Data("Hello, multipart!\r\n--not a boundary\r\n".utf8)
        let binary = Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let streamed = Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let textURL = URL(fileURLWithPath: directory + "/hello.txt")
        let binaryURL = URL(fileURLWithPath: directory + "/raw.dat")
        try text.write(to: textURL)
        try binary.write(to: binaryURL)

        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: server.baseURL + "/parse",
            parameters: ["title": "Ünïcode & \"quotes\"", "tags": ["a", "b"], "nested": ["k": 1]]) { form in
            try form.appendPart(fileURL: textURL, name: "first")
            try form.appendPart(fileURL: binaryURL, name: "second", fileName: "photo.png", mimeType: "image/png")
            form.appendPart(inputStream: InputStream(data: streamed), length: UInt64(streamed.count), name: "stream",
                            fileName: "stream.bin", mimeType: "application/octet-stream")
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        let reply = try MultipartEchoServer.reply(data)
        func field(_ name: String, _ value: String) -> MultipartEchoServer.Part {
            MultipartEchoServer.Part(name: name, filename: nil, contentType: nil, length: value.utf8.count,
                                     sha256: Digest.sha256.hexHash(Array(value.utf8)))
        }
        func file(_ name: String, _ filename: String, _ type: String, _ data: Data) -> MultipartEchoServer.Part {
            MultipartEchoServer.Part(name: name, filename: filename, contentType: type, length: data.count,
                                     sha256: Digest.sha256.hexHash(data))
        }
        #expect(reply.parts == [
            field("nested[k]", "1"), field("tags[]", "a"), field("tags[]", "b"),
            field("title", "Ünïcode & \"quotes\""),
            file("first", "hello.txt", "text/plain", text), file("second", "photo.png", "image/png", binary),
            file("stream", "stream.bin", "application/octet-stream", streamed),
        ])
        #expect(reply.method == "POST")
        #expect(reply.contentLength == request.value(forHTTPHeaderField: "Content-Length"))
    }

    // MARK: Large files in constant memory

    @Test func a64MiBFileStreamsInConstantMemory() async throws {
        try await uploadLargeFile(size: 64 << 20)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FWNETWORKING_UPLOAD_1GIB"] == "1",
                   "takes longer than the default suite should; set FWNETWORKING_UPLOAD_1GIB=1"))
    func a1GiBFileStreamsInConstantMemory() async throws {
        try await uploadLargeFile(size: 1 << 30)
    }

    /// Uploads a `size`-byte file (1 MiB blocks of a fixed pattern, each stamped with its index) as a
    /// multipart part, checks the server received its exact length and hash, and prints the growth of
    /// the process's peak RSS during the upload.
    private func uploadLargeFile(size: Int) async throws {
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let path = NSTemporaryDirectory() + "/fw-multipart-large-\(UUID().uuidString).bin"
        defer { unlink(path) }
        try LargeFile.write(path: path, size: size)
        let expected = try LargeFile.sha256(path: path)
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: server.baseURL + "/stream", parameters: ["kind": "large"]) { form in
            try form.appendPart(fileURL: URL(fileURLWithPath: path), name: "file")
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        let measurement = ProcessMemory.Measurement()
        let (data, response) = try await session.data(for: request)
        let growth = measurement.growth()
        print("multipart upload of \(size >> 20) MiB: RSS before \(measurement.baseline >> 20) MiB, "
              + "peak growth \(growth >> 20) MiB (\(growth) bytes; peak reset: \(measurement.peakWasReset))")

        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        let reply = try MultipartEchoServer.reply(data)
        #expect(reply.parts.map(\.name) == ["kind", "file"])
        #expect(reply.parts.last?.length == size)
        #expect(reply.parts.last?.sha256 == expected)
        #expect(reply.parts.last?.filename == (path as NSString).lastPathComponent)
        #expect(reply.contentLength == request.value(forHTTPHeaderField: "Content-Length"))
    }
}

// MARK: - Helpers

/// Large test files without holding them in memory.
enum LargeFile {
    /// Writes `size` bytes: a 1 MiB pseudo-random block repeated, each copy starting with its index.
    static func write(path: String, size: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw TestSupportError.serverUnavailable("cannot create \(path)")
        }
        defer { try? handle.close() }
        var random = SplitMix64(seed: 64)
        var block = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        var written = 0
        while written < size {
            withUnsafeBytes(of: UInt64(written >> 20).bigEndian) { block.replaceSubrange(0..<8, with: $0) }
            let count = min(block.count, size - written)
            try handle.write(contentsOf: count == block.count ? block : block.prefix(count))
            written += count
        }
    }

    /// The SHA-256 of the file, by `sha256sum` (so the test process never reads it whole).
    static func sha256(path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix { $0 != " " })
    }
}
