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
    public required init() {
        super.init()
    }

    private enum Key {
        static let format = "format"
        static let writeOptions = "writeOptions"
    }

    /// Decodes the superclass's settings, the format and the write options; nil for an unknown format.
    public required init?(coder: NSCoder) {
        let raw = UInt(truncatingIfNeeded: coder.decodeInt64(forKey: Key.format))
        guard let format = PropertyListSerialization.PropertyListFormat(rawValue: raw) else { return nil }
        let writeOptions = PropertyListSerialization.WriteOptions(coder.decodeInt64(forKey: Key.writeOptions))
        super.init(coder: coder)
        settings.withLock { $0 = (format, writeOptions) }
    }

    /// Encodes the superclass's settings, the format and the write options.
    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        let (format, writeOptions) = settings.withLock { ($0.format, $0.writeOptions) }
        coder.encode(Int64(truncatingIfNeeded: format.rawValue), forKey: Key.format)
        coder.encode(Int64(truncatingIfNeeded: writeOptions), forKey: Key.writeOptions)
    }

    override func copySettings(into copy: HTTPRequestSerializer) {
        super.copySettings(into: copy)
        let values = settings.withLock { $0 }
        (copy as? PropertyListRequestSerializer)?.settings.withLock { $0 = values }
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
