// PropertyListRequestSerializer: parameters as a property list body (application/x-plist), except for
// the methods that encode parameters in the URI, which get a query string as with HTTPRequestSerializer.

import FWLoop
import Foundation

// MARK: - PropertyListRequestSerializer

/// Encodes parameters as a property list body with `PropertyListSerialization` (FWFramework's
/// `PropertyListRequestSerializer`).
open class PropertyListRequestSerializer: HTTPRequestSerializer, @unchecked Sendable { // `settings` is a LockedBox
    private let settings = LockedBox((format: PropertyListSerialization.PropertyListFormat.xml,
                                      writeOptions: PropertyListSerialization.WriteOptions(0)))

    /// The property list format: `.xml` unless set; `.binary` works too. Foundation on Linux cannot
    /// write `.openStep` (it traps), so that format is refused with a thrown error.
    open var format: PropertyListSerialization.PropertyListFormat {
        get { settings.withLock { $0.format } }
        set { settings.withLock { $0.format = newValue } }
    }

    /// The options passed to `PropertyListSerialization` (currently unused by Foundation); 0 unless set.
    open var writeOptions: PropertyListSerialization.WriteOptions {
        get { settings.withLock { $0.writeOptions } }
        set { settings.withLock { $0.writeOptions = newValue } }
    }

    /// A serializer writing XML property lists.
    override public init() {
        super.init()
    }

    /// A serializer writing `format` with `writeOptions`.
    public convenience init(format: PropertyListSerialization.PropertyListFormat,
                            writeOptions: PropertyListSerialization.WriteOptions) {
        self.init()
        settings.withLock { $0 = (format, writeOptions) }
    }

    /// For GET, HEAD and DELETE (`httpMethodsEncodingParametersInURI`) the query string of the
    /// superclass; otherwise the default headers, `Content-Type: application/x-plist` unless the request
    /// names one, and `parameters` (when not nil) as the body. Parameters a property list cannot hold
    /// (NSNull, a URL, a non-string key) and the `.openStep` format throw
    /// `NSURLErrorCannotDecodeContentData` in the serialization domain.
    override open func requestBySerializingRequest(_ request: URLRequest, parameters: Any?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.requestBySerializingRequest(request, parameters: parameters)
        }
        var serialized = requestForBody(request, contentType: "application/x-plist")
        guard let parameters = parameters.flatMap(QueryString.unwrapped) else { return serialized }
        let (format, writeOptions) = settings.withLock { ($0.format, $0.writeOptions) }
        guard format != .openStep, PropertyListSerialization.propertyList(parameters, isValidFor: format) else {
            throw Self.serializationError(NSURLErrorCannotDecodeContentData,
                                          "The parameters cannot be written as a \(format) property list",
                                          request: request)
        }
        do {
            serialized.httpBody = try PropertyListSerialization.data(fromPropertyList: parameters, format: format,
                                                                     options: writeOptions)
        } catch {
            throw Self.serializationError(NSURLErrorCannotDecodeContentData,
                                          "The parameters cannot be written as a property list",
                                          request: request, underlying: error)
        }
        return serialized
    }
}
