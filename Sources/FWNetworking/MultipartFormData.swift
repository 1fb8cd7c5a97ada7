// MultipartFormData: what the constructing block of `multipartFormRequest(...)` may append to a form,
// under the names of FWFramework's Swift port (AFNetworking's `AFMultipartFormData`).

import Foundation

// MARK: - MultipartFormData

/// A multipart/form-data body being built: files, streams and data appended as parts, in order.
public protocol MultipartFormData: AnyObject {
    /// Appends the file at `fileURL` as part `name`, with the file's name and the MIME type its
    /// extension suggests. Throws for a URL that is not a readable regular file.
    func appendPart(fileURL: URL, name: String) throws

    /// Appends the file at `fileURL` as part `name` with `fileName` and `mimeType`. The size is taken
    /// now; the bytes are read while the body is sent. Throws for a URL that is not a readable regular file.
    func appendPart(fileURL: URL, name: String, fileName: String, mimeType: String) throws

    /// Appends `length` bytes of `inputStream` as part `name` with `fileName` and `mimeType`; the
    /// stream is opened and read while the body is sent.
    func appendPart(inputStream: InputStream?, length: UInt64, name: String, fileName: String, mimeType: String)

    /// Appends `fileData` as part `name` with `fileName` and `mimeType`.
    func appendPart(fileData: Data, name: String, fileName: String, mimeType: String)

    /// Appends `formData` as the form field `name` (no file name, no Content-Type).
    func appendPart(formData: Data, name: String)

    /// Appends a part with exactly `headers` and `body`.
    func appendPart(headers: [String: String]?, body: Data)

    /// Appends a part with exactly `headers` and `length` bytes of `inputStream`.
    func appendPart(inputStream: InputStream?, length: UInt64, headers: [String: String]?)

    /// Limits each read of the body to `numberOfBytes` and waits `delay` seconds after each one, to
    /// spare a slow link (see `HTTPRequestSerializer.UploadStream3GSuggestedPacketSize`).
    func throttleBandwidth(packetSize numberOfBytes: Int, delay: TimeInterval)
}
