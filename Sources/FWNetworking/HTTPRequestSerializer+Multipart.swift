// Multipart requests: a form built by a constructing block and streamed from its parts, and its body
// written to a file for servers (or upload tasks) that want a file rather than a stream.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - Multipart form requests

extension HTTPRequestSerializer {
    /// A `method` request for `urlString` whose body is a multipart/form-data stream: first a form field
    /// per flattened parameter (names as in query strings, `a[b]`, `a[]`; Data values as they are,
    /// NSNull empty, anything else as text in `stringEncoding`), then whatever `block` appends. The
    /// request gets the default headers, an exact `Content-Length` and a random boundary.
    ///
    /// Throws `NSURLErrorUnsupportedURL` in the serialization domain for GET and HEAD (the port throws
    /// it in NSURLErrorDomain), and whatever the block or the form throws. The block may throw (the
    /// port's may not), so `try formData.appendPart(fileURL:name:)` needs no `try?` inside it.
    public func multipartFormRequest(method: String, urlString: String, parameters: [String: Any]?,
                                     constructingBody block: ((MultipartFormData) throws -> Void)?) throws
        -> URLRequest {
        guard !["GET", "HEAD"].contains(method.uppercased()) else {
            throw Self.serializationError(NSURLErrorUnsupportedURL, "A \(method) request cannot carry a form")
        }
        var request = try makeRequest(method: method, urlString: urlString)
        let snapshot = state.withLock { $0 }
        snapshot.addDefaultHeaders(to: &request)
        let form = StreamingMultipartFormData(urlRequest: request, stringEncoding: .utf8)
        for pair in QueryString.pairs(parameters ?? [:]) {
            form.appendPart(formData: try Self.formFieldData(pair, encoding: snapshot.stringEncoding), name: pair.field)
        }
        try block?(form)
        return try form.requestByFinalizingMultipartFormData()
    }

    /// The bytes of a form field made from a parameter.
    private static func formFieldData(_ pair: QueryString.Pair, encoding: String.Encoding) throws -> Data {
        switch pair.value {
        case .absent: return Data()
        case .bytes(let data): return data
        case .text(let text):
            guard let data = text.data(using: encoding) else {
                throw serializationError(NSURLErrorCannotDecodeContentData,
                                         "The value of \(pair.field) cannot be written in the string encoding")
            }
            return data
        }
    }

    // MARK: Writing the body to a file

    /// Copies the body stream of `request` into the file at `fileURL` (created or truncated, mode 0644)
    /// on a background queue, then calls `completionHandler` on `completionQueue` with nil or the error.
    /// Returns `request` without its body stream (the Content-Type and Content-Length stay), to upload
    /// with `uploadTask(with:fromFile:)`; nil when it has no body stream, `fileURL` is not a file URL or
    /// the file cannot be opened for writing.
    ///
    /// `completionQueue` is an FW addition; it defaults to the main queue as in the port, which a
    /// process must be running for the handler to be called.
    public func request(multipartFormRequest request: URLRequest, writingStreamContentsToFile fileURL: URL,
                        completionQueue: DispatchQueue = .main,
                        completionHandler: (@Sendable ((any Error)?) -> Void)?) -> URLRequest? {
        guard let stream = request.httpBodyStream, fileURL.isFileURL else { return nil }
        let descriptor = open(fileURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        let handedOver = HandedOverStream(stream: stream)
        DispatchQueue.global().async {
            let error = Self.copy(handedOver.stream, to: descriptor, path: fileURL.path)
            close(descriptor)
            if let completionHandler { completionQueue.async { completionHandler(error) } }
        }
        var withoutStream = request
        withoutStream.httpBodyStream = nil
        return withoutStream
    }

    /// Moves the body stream to the copying queue, after which nothing else touches it.
    private struct HandedOverStream: @unchecked Sendable { // used by the copying queue only
        let stream: InputStream
    }

    /// Reads `stream` to its end into `descriptor`; nil on success, else the error.
    private static func copy(_ stream: InputStream, to descriptor: Int32, path: String) -> (any Error)? {
        let capacity = 64 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        stream.open()
        defer { stream.close() }
        while true {
            let count = stream.read(buffer, maxLength: capacity)
            if count == 0 { return nil }
            guard count > 0 else {
                return stream.streamError ?? serializationError(NSURLErrorCannotOpenFile, "Reading the body failed")
            }
            var offset = 0
            while offset < count {
                let written = write(descriptor, buffer + offset, count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    let code = errno
                    return serializationError(NSURLErrorCannotWriteToFile,
                                              "write \(path): \(String(cString: strerror(code)))",
                                              underlying: NSError(domain: NSPOSIXErrorDomain, code: Int(code)))
                }
                offset += written
            }
        }
    }
}
