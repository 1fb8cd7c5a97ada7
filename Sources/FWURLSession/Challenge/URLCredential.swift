// URLCredential, source-compatible with FoundationNetworking's (user and password, NSSecureCoding with
// its keys), plus the two kinds Apple platforms have and FoundationNetworking lacks: a server trust
// (`init(trust:)`, to accept a server) and a client identity (`init(identity:certificates:persistence:)`,
// for mutual TLS). Instances are immutable, so `copy(with:)` returns the receiver.

import FWTLS
import Foundation

// MARK: - Persistence

extension URLCredential {
    /// How long a credential is kept.
    public enum Persistence: UInt, Sendable {
        /// Used for one request only.
        case none = 0
        /// Kept until the session ends.
        case forSession = 1
        /// Kept permanently.
        case permanent = 2
        /// Kept permanently and shared with the user's other devices where the platform can.
        case synchronizable = 3
    }
}

// MARK: - URLCredential

/// An authentication credential: a user name and password, a client identity with its certificates,
/// or an accepted server trust.
///
/// `@unchecked Sendable`: the only stored property is a `let`; `SecTrust` guards its own state.
open class URLCredential: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable { // lets only (see above)
    private struct Fields {
        var user: String?
        var password: String?
        var persistence: Persistence
        var identity: SecIdentity?
        var certificates: [SecCertificate] = []
        var trust: SecTrust?
    }

    private let fields: Fields

    // MARK: Initialisation

    /// A user name and password credential.
    public init(user: String, password: String, persistence: URLCredential.Persistence) {
        self.fields = Fields(user: user, password: password, persistence: persistence)
    }

    /// A client-certificate credential: `identity`, and the intermediate certificates (SecCertificate
    /// values; other elements are ignored) to send after its certificate.
    public init(identity: SecIdentity, certificates certArray: [Any]?, persistence: URLCredential.Persistence) {
        self.fields = Fields(
            persistence: persistence, identity: identity,
            certificates: (certArray ?? []).compactMap { $0 as? SecCertificate }
        )
    }

    /// A server-trust credential: the delegate accepts the server that presented `trust`.
    public init(trust: SecTrust) {
        self.fields = Fields(persistence: .forSession, trust: trust)
    }

    // MARK: Properties

    /// The user name, for a password credential.
    open var user: String? { fields.user }

    /// The password, for a password credential.
    open var password: String? { fields.password }

    /// True when the credential has a password.
    open var hasPassword: Bool { fields.password != nil }

    /// How long the credential is kept.
    open var persistence: URLCredential.Persistence { fields.persistence }

    /// The client identity, for a client-certificate credential.
    open var identity: SecIdentity? { fields.identity }

    /// The intermediate certificates (SecCertificate values) of a client-certificate credential; empty
    /// for other credentials.
    open var certificates: [Any] { fields.certificates }

    // MARK: For the session layer

    /// The accepted trust of a server-trust credential.
    var trust: SecTrust? { fields.trust }

    /// The FWTLS identity of a client-certificate credential.
    var tlsIdentity: TLSIdentity? { fields.identity?.tlsIdentity }

    /// The intermediates given with a client-certificate credential, as FWTLS certificates.
    var intermediateCertificates: [Certificate] { fields.certificates.map(\.certificate) }

    // MARK: NSSecureCoding

    /// True: credentials decode only the classes they expect.
    public static var supportsSecureCoding: Bool { true }

    /// Decodes the user, password and persistence (FoundationNetworking's keys). Identities and trusts
    /// are not archived. nil for an unkeyed coder or an unknown persistence.
    public required init?(coder aDecoder: NSCoder) {
        guard aDecoder.allowsKeyedCoding else { return nil }
        // Absent keys are checked first: a secure decoder treats decoding one as a failure.
        func decode<T: NSObject & NSSecureCoding>(_ type: T.Type, _ key: String) -> T? {
            aDecoder.containsValue(forKey: key) ? aDecoder.decodeObject(of: type, forKey: key) : nil
        }
        let user = decode(NSString.self, Self.userKey).map { String($0) }
        let password = decode(NSString.self, Self.passwordKey).map { String($0) }
        let rawPersistence = decode(NSNumber.self, Self.persistenceKey)?.uintValue
        guard let persistence = Persistence(rawValue: rawPersistence ?? Persistence.none.rawValue) else {
            return nil
        }
        self.fields = Fields(user: user, password: password, persistence: persistence)
    }

    /// Encodes the user, password and persistence under FoundationNetworking's keys.
    open func encode(with aCoder: NSCoder) {
        guard aCoder.allowsKeyedCoding else { preconditionFailure("URLCredential supports keyed coding only") }
        if let user = fields.user { aCoder.encode(NSString(string: user), forKey: Self.userKey) }
        if let password = fields.password { aCoder.encode(NSString(string: password), forKey: Self.passwordKey) }
        aCoder.encode(NSNumber(value: fields.persistence.rawValue), forKey: Self.persistenceKey)
    }

    private static let userKey = "NS._user"
    private static let passwordKey = "NS._password"
    private static let persistenceKey = "NS._persistence"

    // MARK: NSCopying, equality

    /// Returns the receiver: credentials are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Returns the receiver: credentials are immutable.
    open override func copy() -> Any { copy(with: nil) }

    /// Equal when user, password, persistence, identity, certificates and trust (the same object) are.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? URLCredential else { return false }
        return other === self
            || (other.fields.user == fields.user && other.fields.password == fields.password
                && other.fields.persistence == fields.persistence && other.fields.identity == fields.identity
                && other.fields.certificates == fields.certificates && other.fields.trust === fields.trust)
    }

    /// Hashes the user and persistence.
    open override var hash: Int {
        var hasher = Hasher()
        hasher.combine(fields.user)
        hasher.combine(fields.persistence)
        return hasher.finalize()
    }
}
