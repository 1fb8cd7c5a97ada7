// The errors response serializers throw: NSErrors in one domain, carrying the response, its body and
// the failing URL, chained through NSUnderlyingErrorKey. The domain and key strings are those of
// FWFramework's Swift port, so code that matches on them keeps working.

import Foundation

// MARK: - Domain and keys

extension HTTPResponseSerializer {
    /// The domain of the errors response serializers throw.
    public static let URLResponseSerializationErrorDomain = "site.wuyong.error.serialization.response"

    /// userInfo key of a serializer error: the `HTTPURLResponse` that failed.
    public static let NetworkingOperationFailingURLResponseErrorKey =
        "site.wuyong.serialization.response.error.response"

    /// userInfo key of a serializer error: the body (`Data`) of the response that failed.
    public static let NetworkingOperationFailingURLResponseDataErrorKey =
        "site.wuyong.serialization.response.error.data"
}

// MARK: - Building errors

extension HTTPResponseSerializer {
    /// An error in `URLResponseSerializationErrorDomain` with the description, the response, the body,
    /// the response's URL (`NSURLErrorFailingURLErrorKey`) and, when given, the underlying error.
    static func serializationError(
        code: Int, description: String, response: URLResponse?, data: Data, underlying: NSError? = nil
    ) -> NSError {
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: description,
            NetworkingOperationFailingURLResponseDataErrorKey: data,
        ]
        if let response {
            userInfo[NetworkingOperationFailingURLResponseErrorKey] = response
            if let url = response.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        }
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: URLResponseSerializationErrorDomain, code: code, userInfo: userInfo)
    }

    /// `error` with `underlying` under NSUnderlyingErrorKey, unless there is none to add or `error`
    /// already has one (AFNetworking's chaining rule: an existing cause is never replaced).
    static func chaining(_ error: NSError, underlying: NSError?) -> NSError {
        guard let underlying, error.userInfo[NSUnderlyingErrorKey] == nil else { return error }
        var userInfo = error.userInfo
        userInfo[NSUnderlyingErrorKey] = underlying
        return NSError(domain: error.domain, code: error.code, userInfo: userInfo)
    }

    /// Whether `error` or an error under it is a content-type failure of this domain.
    static func isContentTypeFailure(_ error: NSError) -> Bool {
        var current: NSError? = error
        while let checked = current {
            if checked.domain == URLResponseSerializationErrorDomain,
               checked.code == NSURLErrorCannotDecodeContentData {
                return true
            }
            current = checked.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        return false
    }

    // MARK: Validation before decoding

    /// Runs `validateResponse(_:data:)` for a decoding serializer. Throws a content-type failure (there
    /// is no point decoding); returns any other failure (an unacceptable status), after which decoding
    /// goes on so that a body that does not decode can be reported along with it; nil when valid.
    func validationBeforeDecoding(_ response: URLResponse?, data: Data) throws -> NSError? {
        do {
            try validateResponse(response, data: data)
            return nil
        } catch {
            let failure = error as NSError
            if Self.isContentTypeFailure(failure) { throw failure }
            return failure
        }
    }

    /// The error for a body `decoder` could not read: `NSURLErrorCannotDecodeContentData` in this domain,
    /// whose underlying error is the decoder's, itself carrying `validationFailure` (when there was
    /// one) under NSUnderlyingErrorKey.
    static func decodingError(
        _ decoderError: any Error, decoder: String, validationFailure: NSError?, response: URLResponse?, data: Data
    ) -> NSError {
        serializationError(
            code: NSURLErrorCannotDecodeContentData, description: "The response body is not valid \(decoder).",
            response: response, data: data, underlying: chaining(decoderError as NSError, underlying: validationFailure)
        )
    }
}
