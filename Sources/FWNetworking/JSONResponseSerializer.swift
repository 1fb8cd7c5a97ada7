// JSONResponseSerializer, with AFNetworking's rules, which the seeds' manager follows:
// - a content-type failure is thrown before any decoding;
// - an empty body, or a body of one space (what Rails sends for `head :ok`), decodes to nil without
//   error: a 204, a 205 or the answer to a HEAD request has nothing to decode;
// - a body that is not JSON throws NSURLErrorCannotDecodeContentData with JSONSerialization's error
//   under it (and, under that, the status failure when there was one). AFNetworking hands back the
//   JSONSerialization error itself; wrapping it lets this error carry the response and the body like
//   every other serializer error;
// - an unacceptable status with a body that decodes throws the status error. AFNetworking hands back
//   both the decoded body and the error there; a throwing function cannot, so the body stays in the
//   error's userInfo under NetworkingOperationFailingURLResponseDataErrorKey.

import FWLoop
import Foundation

// MARK: - JSONResponseSerializer

/// Validates a response, then decodes its body with JSONSerialization.
///
/// Accepts `application/json`, `text/json` and `text/javascript` by default.
open class JSONResponseSerializer: HTTPResponseSerializer, @unchecked Sendable { // settings: in `reading`, a LockedBox
    struct Reading: Sendable {
        var readingOptions: JSONSerialization.ReadingOptions = []
        var removesKeysWithNullValues = false
    }

    let reading = LockedBox(Reading())

    /// A serializer for the JSON content types, with no reading options.
    public required init() {
        super.init()
        acceptableContentTypes = ["application/json", "text/json", "text/javascript"]
    }

    /// A serializer for the JSON content types, reading with `readingOptions`.
    public convenience init(readingOptions: JSONSerialization.ReadingOptions) {
        self.init()
        self.readingOptions = readingOptions
    }

    // MARK: Settings

    /// The options given to JSONSerialization (`.fragmentsAllowed` for a top-level string or number).
    open var readingOptions: JSONSerialization.ReadingOptions {
        get { reading.withLock { $0.readingOptions } }
        set { reading.withLock { $0.readingOptions = newValue } }
    }

    /// Whether null values are removed from the decoded object: keys of dictionaries and elements of
    /// arrays, at every depth. False by default.
    open var removesKeysWithNullValues: Bool {
        get { reading.withLock { $0.removesKeysWithNullValues } }
        set { reading.withLock { $0.removesKeysWithNullValues = newValue } }
    }

    // MARK: Serializing

    /// The decoded JSON object, or nil for an empty (or one-space) body; see the rules above.
    override open func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        let validationFailure = try validationBeforeDecoding(response, data: data)
        let settings = reading.withLock { $0 }
        guard !data.isEmpty, data != Data(" ".utf8) else {
            if let validationFailure { throw validationFailure }
            return nil
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: settings.readingOptions)
        } catch {
            throw Self.decodingError(
                error, decoder: "JSON", validationFailure: validationFailure, response: response, data: data
            )
        }
        if let validationFailure { throw validationFailure }
        return settings.removesKeysWithNullValues ? Self.removingKeysWithNullValues(object) : object
    }

    // MARK: NSSecureCoding, NSCopying

    private enum Key {
        static let readingOptions = "readingOptions"
        static let removesKeysWithNullValues = "removesKeysWithNullValues"
    }

    /// Decodes the validation settings, the reading options and the null-removal flag.
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        let options = UInt(truncatingIfNeeded: coder.decodeInteger(forKey: Key.readingOptions))
        let removes = coder.decodeBool(forKey: Key.removesKeysWithNullValues)
        reading.withLock {
            $0.readingOptions = JSONSerialization.ReadingOptions(rawValue: options)
            $0.removesKeysWithNullValues = removes
        }
    }

    /// Encodes the validation settings, the reading options and the null-removal flag.
    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        let settings = reading.withLock { $0 }
        coder.encode(Int(truncatingIfNeeded: settings.readingOptions.rawValue), forKey: Key.readingOptions)
        coder.encode(settings.removesKeysWithNullValues, forKey: Key.removesKeysWithNullValues)
    }

    override func copySettings(into copy: HTTPResponseSerializer) {
        super.copySettings(into: copy)
        guard let copy = copy as? JSONResponseSerializer else { return }
        let settings = reading.withLock { $0 }
        copy.reading.withLock { $0 = settings }
    }
}

// MARK: - Removing nulls

extension HTTPResponseSerializer {
    /// `jsonObject` without its null values: dictionaries lose the keys whose value is null, arrays
    /// lose their null elements, at every depth; other values are returned as they are.
    public static func removingKeysWithNullValues(_ jsonObject: Any) -> Any {
        if let array = jsonObject as? [Any] {
            return array.filter { !($0 is NSNull) }.map(removingKeysWithNullValues)
        }
        if let dictionary = jsonObject as? [String: Any] {
            return dictionary.filter { !($0.value is NSNull) }.mapValues(removingKeysWithNullValues)
        }
        return jsonObject
    }
}
