// JSONRequestSerializer: parameters as a JSON body (application/json), except for the methods that
// encode parameters in the URI, which get a query string as with HTTPRequestSerializer.

import FWLoop
import Foundation

// MARK: - JSONRequestSerializer

/// Encodes parameters as a JSON body with `JSONSerialization` (FWFramework's `JSONRequestSerializer`).
open class JSONRequestSerializer: HTTPRequestSerializer, @unchecked Sendable { // `options` is a LockedBox
    private let options = LockedBox(JSONSerialization.WritingOptions())

    /// The options of `JSONSerialization.data(withJSONObject:options:)`; none unless set. With
    /// `.fragmentsAllowed` a bare string or number is accepted too.
    open var writingOptions: JSONSerialization.WritingOptions {
        get { options.withLock { $0 } }
        set { options.withLock { $0 = newValue } }
    }

    /// A serializer with no writing options.
    public required init() {
        super.init()
    }

    /// Decodes the superclass's settings and the writing options.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        let raw = UInt(truncatingIfNeeded: coder.decodeInt64(forKey: Self.writingOptionsKey))
        options.withLock { $0 = JSONSerialization.WritingOptions(rawValue: raw) }
    }

    private static let writingOptionsKey = "writingOptions"

    /// Encodes the superclass's settings and the writing options.
    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(Int64(truncatingIfNeeded: writingOptions.rawValue), forKey: Self.writingOptionsKey)
    }

    override func copySettings(into copy: HTTPRequestSerializer) {
        super.copySettings(into: copy)
        (copy as? JSONRequestSerializer)?.writingOptions = writingOptions
    }

    /// A serializer with `writingOptions`.
    public convenience init(writingOptions: JSONSerialization.WritingOptions) {
        self.init()
        self.writingOptions = writingOptions
    }

    /// For GET, HEAD and DELETE (`httpMethodsEncodingParametersInURI`) the query string of the
    /// superclass; otherwise the default headers, `Content-Type: application/json` unless the request
    /// names one, and `parameters` (when not nil) as the JSON body. Parameters JSON cannot represent
    /// (a date, NaN, a non-string key, a bare value without `.fragmentsAllowed`) throw
    /// `NSURLErrorCannotDecodeContentData` in the serialization domain.
    override open func requestBySerializingRequest(_ request: URLRequest, parameters: Any?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.requestBySerializingRequest(request, parameters: parameters)
        }
        var serialized = requestForBody(request, contentType: "application/json")
        guard let parameters = parameters.flatMap(QueryString.unwrapped) else { return serialized }
        let options = writingOptions
        let checked: Any = options.contains(.fragmentsAllowed) ? [parameters] : parameters
        guard JSONSerialization.isValidJSONObject(checked) else {
            throw Self.serializationError(NSURLErrorCannotDecodeContentData,
                                          "The parameters are not a valid JSON object", request: request)
        }
        do {
            serialized.httpBody = try JSONSerialization.data(withJSONObject: parameters, options: options)
        } catch {
            throw Self.serializationError(NSURLErrorCannotDecodeContentData,
                                          "The parameters cannot be written as JSON", request: request,
                                          underlying: error)
        }
        return serialized
    }
}
