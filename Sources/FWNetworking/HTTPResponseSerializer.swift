// HTTPResponseSerializer: validates a response's status code and content type and hands back the body
// as it came. The decoding serializers subclass it; the errors it throws are built in
// HTTPResponseSerializer+Errors.swift.
//
// Validation follows AFNetworking's rules, which the seeds' manager follows:
// - only an HTTPURLResponse is validated (nil or another URLResponse passes);
// - a content type outside `acceptableContentTypes` fails only when the body is not empty (a missing
//   Content-Type counts as outside the set);
// - a status code outside `acceptableStatusCodes` fails; when the content type failed too, the status
//   error is thrown with the content-type error under NSUnderlyingErrorKey.

import FWLoop
import Foundation

// MARK: - HTTPResponseSerializer

/// Validates a response's status code and content type; its response object is the body, unchanged.
///
/// Settings may be read and changed from any thread. Archivable (`NSSecureCoding`) and copyable
/// (`NSCopying`) with its settings, as AFNetworking's are.
open class HTTPResponseSerializer: NSObject, URLResponseSerialization, NSSecureCoding, NSCopying,
    @unchecked Sendable { // settings: in `validation`, a LockedBox
    struct Validation: Sendable {
        var acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300)
        var acceptableContentTypes: Set<String>?
    }

    let validation = LockedBox(Validation())

    /// A serializer accepting status codes 200–299 and any content type.
    override public required init() {
        super.init()
    }

    // MARK: Settings

    /// The status codes a response may have; nil accepts any. 200–299 by default.
    open var acceptableStatusCodes: IndexSet? {
        get { validation.withLock { $0.acceptableStatusCodes } }
        set { validation.withLock { $0.acceptableStatusCodes = newValue } }
    }

    /// The MIME types (lower case, without parameters) a non-empty body may have; nil accepts any.
    open var acceptableContentTypes: Set<String>? {
        get { validation.withLock { $0.acceptableContentTypes } }
        set { validation.withLock { $0.acceptableContentTypes = newValue } }
    }

    // MARK: Serializing

    /// Throws an error in `URLResponseSerializationErrorDomain` when an HTTP response's content type or
    /// status code is not acceptable: `NSURLErrorCannotDecodeContentData` for the content type,
    /// `NSURLErrorBadServerResponse` for the status (wrapping the content-type error when both fail).
    open func validateResponse(_ response: URLResponse?, data: Data) throws {
        guard let response = response as? HTTPURLResponse else { return }
        let settings = validation.withLock { $0 }
        var failure: NSError?
        if let types = settings.acceptableContentTypes, !data.isEmpty,
           !(response.mimeType.map(types.contains) ?? false) {
            failure = Self.serializationError(
                code: NSURLErrorCannotDecodeContentData,
                description: "The response's content type (\(response.mimeType ?? "none")) is not acceptable.",
                response: response, data: data
            )
        }
        if let codes = settings.acceptableStatusCodes, !codes.contains(response.statusCode) {
            let text = HTTPURLResponse.localizedString(forStatusCode: response.statusCode)
            failure = Self.serializationError(
                code: NSURLErrorBadServerResponse,
                description: "The response's status code \(response.statusCode) (\(text)) is not acceptable.",
                response: response, data: data, underlying: failure
            )
        }
        if let failure { throw failure }
    }

    /// The body itself, after `validateResponse(_:data:)`.
    open func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        try validateResponse(response, data: data)
        return data
    }

    // MARK: NSSecureCoding, NSCopying

    private enum Key {
        static let acceptableStatusCodes = "acceptableStatusCodes"
        static let acceptableContentTypes = "acceptableContentTypes"
    }

    /// True: a serializer decodes only the types it encoded.
    public class var supportsSecureCoding: Bool { true }

    /// Decodes the acceptable status codes and content types.
    public required init?(coder: NSCoder) {
        let codes = coder.containsValue(forKey: Key.acceptableStatusCodes)
            ? coder.decodeObject(of: NSIndexSet.self, forKey: Key.acceptableStatusCodes) : nil
        let types = coder.containsValue(forKey: Key.acceptableContentTypes)
            ? coder.decodeObject(of: [NSSet.self, NSString.self], forKey: Key.acceptableContentTypes) : nil
        super.init()
        validation.withLock {
            $0.acceptableStatusCodes = codes.map { $0 as IndexSet }
            $0.acceptableContentTypes = types as? Set<String>
        }
    }

    /// Encodes the acceptable status codes and content types (each only when not nil).
    open func encode(with coder: NSCoder) {
        let settings = validation.withLock { $0 }
        if let codes = settings.acceptableStatusCodes {
            coder.encode(NSIndexSet(indexSet: codes), forKey: Key.acceptableStatusCodes)
        }
        if let types = settings.acceptableContentTypes {
            coder.encode(NSSet(set: types), forKey: Key.acceptableContentTypes)
        }
    }

    /// A serializer of the same class with the same settings.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = type(of: self).init()
        copySettings(into: copy)
        return copy
    }

    /// Gives `copy` (of this serializer's class) these settings; each subclass adds its own.
    func copySettings(into copy: HTTPResponseSerializer) {
        let settings = validation.withLock { $0 }
        copy.validation.withLock { $0 = settings }
    }
}
