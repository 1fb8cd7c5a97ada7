import Foundation

// MARK: - DownloadResumeData

/// What a download needs to continue where it stopped: the bytes already in its partial file, and the
/// validator that proves the resource did not change meanwhile.
///
/// The `Data` that `cancel(byProducingResumeData:)` and `URLError.downloadTaskResumeData` hand out is
/// this value encoded as JSON (keys sorted), so it survives a process restart and can be inspected:
///
/// ```json
/// {"bytesReceived":1048576,"entityTag":"\"5f2-1a\"","expectedTotalBytes":4194304,
///  "format":"FWNetworking.DownloadResumeData","headerFields":[["Accept","*/*"]],
///  "lastModified":"Sun, 22 Nov 2026 10:00:00 GMT","temporaryFilePath":"/tmp/FWNetworking-Download-a1b2c3.tmp",
///  "url":"https://example.com/big.bin","version":1}
/// ```
///
/// Version 1 is the only version; a newer `version` is refused rather than misread. To continue from
/// another URL (a re-signed link, a mirror), decode, change `url`, and encode again: the validator still
/// guards against a different resource (`If-Range`).
public struct DownloadResumeData: Codable, Sendable, Equatable {
    /// The version this build writes and reads.
    public static let currentVersion = 1
    private static let formatName = "FWNetworking.DownloadResumeData"

    /// Identifies the format.
    private var format = Self.formatName
    /// The format version.
    public private(set) var version = Self.currentVersion
    /// Where the download continues from.
    public var url: URL
    /// The original request's fields, in order (`Range` and `If-Range` are added when resuming).
    public var headerFields: [[String]]
    /// The partial file.
    public var temporaryFilePath: String
    /// How many bytes of the body the partial file holds.
    public var bytesReceived: Int64
    /// The response's strong `ETag`, sent back in `If-Range`.
    public var entityTag: String?
    /// The response's `Last-Modified`, sent in `If-Range` when there is no strong ETag.
    public var lastModified: String?
    /// The whole body's length, when the server said it.
    public var expectedTotalBytes: Int64?

    /// Describes a partial download.
    public init(url: URL, headerFields: [[String]] = [], temporaryFilePath: String, bytesReceived: Int64,
                entityTag: String?, lastModified: String?, expectedTotalBytes: Int64?) {
        self.url = url
        self.headerFields = headerFields
        self.temporaryFilePath = temporaryFilePath
        self.bytesReceived = bytesReceived
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.expectedTotalBytes = expectedTotalBytes
    }

    /// Decodes resume data; throws `URLError.cannotDecodeRawData` for anything else (including a newer
    /// version of the format).
    public init(_ data: Data) throws(URLError) {
        let decoded: DownloadResumeData
        do {
            decoded = try JSONDecoder().decode(DownloadResumeData.self, from: data)
        } catch {
            throw URLError(.cannotDecodeRawData, url: nil, description: "not FWNetworking resume data: \(error)")
        }
        guard decoded.format == Self.formatName, decoded.version == Self.currentVersion,
              decoded.bytesReceived >= 0, decoded.headerFields.allSatisfy({ $0.count == 2 }) else {
            throw URLError(.cannotDecodeRawData, url: decoded.url,
                           description: "unsupported resume data (format \(decoded.format) version \(decoded.version))")
        }
        self = decoded
    }

    /// The encoded form.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// The `If-Range` value: the strong ETag, else the Last-Modified date; nil when there is neither
    /// (then the range is requested without a validator only if the caller accepts that risk: never).
    var ifRangeValue: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// The request that continues the download.
    func resumingRequest() -> URLRequest {
        var request = URLRequest(url: url)
        for field in headerFields where !["range", "if-range"].contains(field[0].lowercased()) {
            request.addValue(field[1], forHTTPHeaderField: field[0])
        }
        if let ifRange = ifRangeValue, bytesReceived > 0 {
            request.setValue("bytes=\(bytesReceived)-", forHTTPHeaderField: "Range")
            request.setValue(ifRange, forHTTPHeaderField: "If-Range")
            // The partial file holds the identity body (an encoded one is never resumable): ask for more of it.
            if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
                request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            }
        }
        return request
    }
}

// MARK: - Resume data in errors

/// The `userInfo` key of a failed download's resume data (FoundationNetworking's name).
public let NSURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"
/// The `userInfo` key of a failed download's resume data.
public let URLSessionDownloadTaskResumeData = NSURLSessionDownloadTaskResumeData

extension URLError {
    /// The resume data of a download that failed or was cancelled after part of its body arrived, when
    /// the server made it resumable (a strong ETag or a Last-Modified date).
    public var downloadTaskResumeData: Data? {
        userInfo[NSURLSessionDownloadTaskResumeData] as? Data
    }
}
