import FWLoop
import Foundation

// MARK: - CompoundResponseSerializer

/// Tries serializers in order: the first that returns an object without throwing wins; when none does,
/// the compound's own validation decides and the body comes back as `Data`.
///
/// The compound's own `acceptableContentTypes` is nil (any) and its status codes 200–299, so a body no
/// member accepts is still handed back when the status is acceptable. Where AFNetworking keeps the
/// object of a member that decoded the body of an unacceptable status, that member throws here and the
/// next one is tried.
open class CompoundResponseSerializer: HTTPResponseSerializer,
    @unchecked Sendable { // settings: in `members`, a LockedBox
    let members = LockedBox<[any URLResponseSerialization]>([])

    /// A compound of no serializers: validation alone, the body as `Data`.
    public required init() {
        super.init()
    }

    /// A compound of `responseSerializers`, tried in order.
    public convenience init(responseSerializers: [any URLResponseSerialization]) {
        self.init()
        members.withLock { $0 = responseSerializers }
    }

    /// The serializers, in the order they are tried (set when the compound is made).
    open var responseSerializers: [any URLResponseSerialization] {
        members.withLock { $0 }
    }

    // MARK: Serializing

    /// The object of the first serializer that returns one without throwing, else the validated body.
    override open func responseObject(for response: URLResponse?, data: Data) throws -> Any? {
        for serializer in responseSerializers {
            if let object = try? serializer.responseObject(for: response, data: data) {
                return object
            }
        }
        return try super.responseObject(for: response, data: data)
    }

    // MARK: NSSecureCoding, NSCopying

    private enum Key {
        static let responseSerializers = "responseSerializers"
    }

    /// The classes a decoded compound may contain: the serializers of this module.
    private static var memberClasses: [AnyClass] {
        [
            NSArray.self, HTTPResponseSerializer.self, JSONResponseSerializer.self,
            PropertyListResponseSerializer.self, CompoundResponseSerializer.self,
        ]
    }

    /// Decodes the validation settings and the serializers.
    public required init?(coder: NSCoder) {
        let decoded = coder.decodeObject(of: Self.memberClasses, forKey: Key.responseSerializers)
        super.init(coder: coder)
        let serializers = (decoded as? [Any] ?? []).compactMap { $0 as? any URLResponseSerialization }
        members.withLock { $0 = serializers }
    }

    /// Encodes the validation settings and the serializers that can be archived (those that are
    /// `NSSecureCoding` objects); the others are left out.
    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        let archivable = responseSerializers.filter { $0 is NSSecureCoding }
        coder.encode(NSArray(array: archivable), forKey: Key.responseSerializers)
    }

    override func copySettings(into copy: HTTPResponseSerializer) {
        super.copySettings(into: copy)
        guard let copy = copy as? CompoundResponseSerializer else { return }
        let serializers = members.withLock { $0 }
        copy.members.withLock { $0 = serializers }
    }
}
