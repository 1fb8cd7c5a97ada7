// PropertyListResponseSerializer, with AFNetworking's rules: a content-type failure is thrown before
// decoding; a body that is not a property list (an empty body included: a property list cannot be
// empty) throws NSURLErrorCannotDecodeContentData with PropertyListSerialization's error under it; an
// unacceptable status with a body that decodes throws the status error (the body stays in its userInfo).

import FWLoop
import Foundation

// MARK: - PropertyListResponseSerializer

/// Validates a response, then decodes its body with PropertyListSerialization (XML, binary or
/// OpenStep, whichever the body is).
///
/// Accepts `application/x-plist` by default.
open class PropertyListResponseSerializer: HTTPResponseSerializer,
    @unchecked Sendable { // settings: in `reading`, a LockedBox
    struct Reading: Sendable {
        var format: PropertyListSerialization.PropertyListFormat = .xml
        var readOptions: PropertyListSerialization.ReadOptions = []
    }

    let reading = LockedBox(Reading())

    /// A serializer for `application/x-plist`, expecting XML, with no read options.
    public required init() {
        super.init()
        acceptableContentTypes = ["application/x-plist"]
    }

    /// A serializer for `application/x-plist` with `format` and `readOptions`.
    public convenience init(
        format: PropertyListSerialization.PropertyListFormat, readOptions: PropertyListSerialization.ReadOptions
    ) {
        self.init()
        reading.withLock {
            $0.format = format
            $0.readOptions = readOptions
        }
    }

    // MARK: Settings

    /// The format the server is expected to send (XML by default). As in AFNetworking, it is a
    /// setting kept, copied and archived: decoding reads whichever format the body is in.
    open var format: PropertyListSerialization.PropertyListFormat {
        get { reading.withLock { $0.format } }
        set { reading.withLock { $0.format = newValue } }
    }

    /// The options given to PropertyListSerialization (mutability of the decoded containers).
    open var readOptions: PropertyListSerialization.ReadOptions {
        get { reading.withLock { $0.readOptions } }
        set { reading.withLock { $0.readOptions = newValue } }
    }

    // MARK: Serializing

    /// The decoded property list; see the rules above.
    override open func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        let validationFailure = try validationBeforeDecoding(response, data: data)
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: readOptions, format: nil)
        } catch {
            throw Self.decodingError(
                error, decoder: "property list", validationFailure: validationFailure, response: response, data: data
            )
        }
        if let validationFailure { throw validationFailure }
        return object
    }

    // MARK: NSSecureCoding, NSCopying

    private enum Key {
        static let format = "format"
        static let readOptions = "readOptions"
    }

    /// Decodes the validation settings, the format and the read options; nil for an unknown format.
    public required init?(coder: NSCoder) {
        let rawFormat = UInt(truncatingIfNeeded: coder.decodeInteger(forKey: Key.format))
        guard let format = PropertyListSerialization.PropertyListFormat(rawValue: rawFormat) else { return nil }
        let options = UInt(truncatingIfNeeded: coder.decodeInteger(forKey: Key.readOptions))
        super.init(coder: coder)
        reading.withLock {
            $0.format = format
            $0.readOptions = PropertyListSerialization.ReadOptions(rawValue: options)
        }
    }

    /// Encodes the validation settings, the format and the read options.
    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        let settings = reading.withLock { $0 }
        coder.encode(Int(truncatingIfNeeded: settings.format.rawValue), forKey: Key.format)
        coder.encode(Int(truncatingIfNeeded: settings.readOptions.rawValue), forKey: Key.readOptions)
    }

    override func copySettings(into copy: HTTPResponseSerializer) {
        super.copySettings(into: copy)
        guard let copy = copy as? PropertyListResponseSerializer else { return }
        let settings = reading.withLock { $0 }
        copy.reading.withLock { $0 = settings }
    }
}
