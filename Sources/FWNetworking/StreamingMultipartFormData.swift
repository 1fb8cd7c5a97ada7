// StreamingMultipartFormData: the MultipartFormData a constructing block appends to. Parts are recorded
// (headers, and a body of known length: data, a file or a stream); finalizing lays them out as
// segments of a MultipartBodyStream and sets the request's Content-Type and exact Content-Length.
//
// Body layout (RFC 7578 / RFC 2046), B the boundary:
//   --B CRLF, then per part its header lines `Name: value` CRLF, an empty line, the body;
//   CRLF --B CRLF between parts; CRLF --B-- CRLF after the last.
// Part headers come in a fixed order: Content-Disposition, Content-Type, then the others sorted by name
// (the port and AFNetworking write a dictionary's headers in whatever order it yields).

import Foundation

// MARK: - StreamingMultipartFormData

/// A multipart/form-data body streamed from its parts (FWFramework's `StreamingMultipartFormData`).
open class StreamingMultipartFormData: MultipartFormData {
    /// One appended part: header lines in order, and the body.
    struct Part {
        var headers: [(name: String, value: String)]
        var body: MultipartSegment
    }

    /// The boundary between parts.
    public let boundary: String
    /// The encoding of boundaries and part headers.
    public let stringEncoding: String.Encoding
    private let request: URLRequest
    private(set) var parts: [Part] = []
    private var throttle: (packetSize: Int, delay: TimeInterval) = (.max, 0)

    /// A form for `urlRequest` whose boundaries and part headers are encoded with `stringEncoding`,
    /// separated by `boundary` (by default a random `Boundary+` followed by 16 hexadecimal digits, as
    /// AFNetworking makes them; the parameter is an FW addition, for reproducible bodies).
    public init(urlRequest: URLRequest, stringEncoding: String.Encoding,
                boundary: String = StreamingMultipartFormData.randomBoundary()) {
        request = urlRequest
        self.stringEncoding = stringEncoding
        self.boundary = boundary
    }

    /// `Boundary+` and 16 random upper-case hexadecimal digits.
    public static func randomBoundary() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16, uppercase: true)
        return "Boundary+" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    // MARK: Finalizing

    /// The request with the form as its `httpBodyStream`, `Content-Type: multipart/form-data;
    /// boundary=B` and the exact `Content-Length`; the request unchanged when no part was appended.
    /// Throws in the serialization domain for an invalid boundary, a header that is not a token or holds
    /// a line break, a header the string encoding cannot represent, or a nil stream announced with bytes
    /// (the port cannot fail here; its invalid forms are sent broken).
    open func requestByFinalizingMultipartFormData() throws -> URLRequest {
        guard !parts.isEmpty else { return request }
        let stream = try makeBodyStream()
        var finalized = request
        finalized.httpBodyStream = stream
        finalized.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        finalized.setValue(String(stream.contentLength), forHTTPHeaderField: "Content-Length")
        return finalized
    }

    /// The parts laid out as segments: opening boundary and headers, body, ..., closing boundary.
    func makeBodyStream() throws -> MultipartBodyStream {
        try validate()
        var segments: [MultipartSegment] = []
        for (index, part) in parts.enumerated() {
            let opening = index == 0 ? "--\(boundary)\r\n" : "\r\n--\(boundary)\r\n"
            let lines = part.headers.map { "\($0.name): \($0.value)\r\n" }.joined()
            segments.append(try encodedSegment(opening + lines + "\r\n"))
            segments.append(part.body)
        }
        segments.append(try encodedSegment("\r\n--\(boundary)--\r\n"))
        return MultipartBodyStream(segments: segments, packetSize: throttle.packetSize, delay: throttle.delay)
    }

    private func encodedSegment(_ text: String) throws -> MultipartSegment {
        guard let data = text.data(using: stringEncoding) else {
            throw HTTPRequestSerializer.serializationError(
                NSURLErrorCannotDecodeContentData, "A part header cannot be written in the string encoding",
                request: request)
        }
        return MultipartSegment(source: .bytes(data), length: UInt64(data.count))
    }

    // MARK: Appending

    /// Appends the file at `fileURL` as part `name`, named as the file and typed by its extension
    /// (`mimeType(forPathExtension:)`).
    open func appendPart(fileURL: URL, name: String) throws {
        let mimeType = Self.mimeType(forPathExtension: fileURL.pathExtension)
        try appendPart(fileURL: fileURL, name: name, fileName: fileURL.lastPathComponent, mimeType: mimeType)
    }

    /// Appends the file at `fileURL` as part `name` with `fileName` and `mimeType`, its size taken now.
    /// Throws `NSURLErrorBadURL` in the serialization domain when the URL is not a file URL or not a
    /// readable regular file.
    open func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws {
        let size = try Self.regularFileSize(fileURL)
        append(headers: Self.fileHeaders(name: name, fileName: fileName, mimeType: mimeType),
               body: MultipartSegment(source: .file(path: fileURL.path), length: size))
    }

    /// Appends `length` bytes of `inputStream` as part `name` with `fileName` and `mimeType`.
    open func appendPart(inputStream: InputStream?, length: UInt64, name: String, fileName: String,
                         mimeType: String) {
        append(headers: Self.fileHeaders(name: name, fileName: fileName, mimeType: mimeType),
               body: MultipartSegment(source: .stream(inputStream), length: length))
    }

    /// Appends `fileData` as part `name` with `fileName` and `mimeType`.
    open func appendPart(fileData: Data, name: String, fileName: String, mimeType: String) {
        append(headers: Self.fileHeaders(name: name, fileName: fileName, mimeType: mimeType),
               body: MultipartSegment(source: .bytes(fileData), length: UInt64(fileData.count)))
    }

    /// Appends `formData` as the form field `name`.
    open func appendPart(formData: Data, name: String) {
        append(headers: [("Content-Disposition", Self.contentDisposition(name: name, fileName: nil))],
               body: MultipartSegment(source: .bytes(formData), length: UInt64(formData.count)))
    }

    /// Appends a part with `headers` (in the fixed order described above) and `body`.
    open func appendPart(headers: [String: String]?, body: Data) {
        append(headers: Self.ordered(headers ?? [:]),
               body: MultipartSegment(source: .bytes(body), length: UInt64(body.count)))
    }

    /// Appends a part with `headers` (in the fixed order described above) and `length` bytes of
    /// `inputStream`.
    open func appendPart(inputStream: InputStream?, length: UInt64, headers: [String: String]?) {
        append(headers: Self.ordered(headers ?? [:]), body: MultipartSegment(source: .stream(inputStream),
                                                                             length: length))
    }

    /// Makes each read of the body return at most `numberOfBytes` (at least 1) and wait `delay` seconds.
    open func throttleBandwidth(packetSize numberOfBytes: Int, delay: TimeInterval) {
        throttle = (max(1, numberOfBytes), max(0, delay))
    }

    private func append(headers: [(name: String, value: String)], body: MultipartSegment) {
        parts.append(Part(headers: headers, body: body))
    }
}
