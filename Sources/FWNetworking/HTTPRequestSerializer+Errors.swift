// The serialization error domain, its user-info key, and the upload throttling suggestions, under the
// names of FWFramework's Swift port (AFNetworking's constants with the `AF` prefix dropped).

import Foundation

// MARK: - Constants

extension HTTPRequestSerializer {
    /// The domain of every error a request serializer or a multipart form throws.
    public static let URLRequestSerializationErrorDomain = "site.wuyong.error.serialization.request"

    /// The user-info key under which a serialization error carries the request it failed on, when
    /// there was one.
    public static let NetworkingOperationFailingURLRequestErrorKey =
        "site.wuyong.serialization.request.error.response"

    /// A packet size for `throttleBandwidth(packetSize:delay:)` suited to a slow mobile link (16 KiB).
    public static let UploadStream3GSuggestedPacketSize: UInt = 16 * 1024

    /// A delay for `throttleBandwidth(packetSize:delay:)` suited to a slow mobile link (0.2 s).
    public static let UploadStream3GSuggestedDelay: TimeInterval = 0.2
}

// MARK: - Making errors

extension HTTPRequestSerializer {
    /// An error in the serialization domain with a `URLError` code, a description, the request it
    /// concerns and the error underneath, when known.
    static func serializationError(_ code: Int, _ description: String, request: URLRequest? = nil,
                                   underlying: (any Error)? = nil) -> NSError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let request { userInfo[NetworkingOperationFailingURLRequestErrorKey] = request }
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: URLRequestSerializationErrorDomain, code: code, userInfo: userInfo)
    }
}
