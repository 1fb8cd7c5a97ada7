// URLSessionManager+Coding: archiving and copying a manager (seed 000, "NSCoding Caveats" and "NSCopying
// Caveats"). Both carry the session configuration and, beyond what AFURLSessionManager carries (its HTTP
// subclass adds them), the response serializer and the security policy; never the blocks, which often
// capture the original manager. A copy or a decoded manager makes its own session on first use.
//
// A configuration's stores (cookies, credentials, cache) are objects of this process, which the
// configuration's archive leaves out (a decoded configuration has `.default`'s shared stores). The
// manager's archive keeps which kind of store each one was — none, the process's shared one, or one of
// its own — so that an ephemeral manager does not come back writing cookies, credentials and responses
// to the shared persistent stores: a store of its own comes back as a new, empty, in-memory one (what
// `.ephemeral` gives), nil stays nil, and the shared store stays shared. A copy keeps the very stores.

import Foundation

extension URLSessionManager {
    private enum Key {
        static let sessionConfiguration = "sessionConfiguration"
        static let responseSerializer = "responseSerializer"
        static let securityPolicy = "securityPolicy"
        static let cookieStore = "sessionConfiguration.httpCookieStorage"
        static let credentialStore = "sessionConfiguration.urlCredentialStorage"
        static let cacheStore = "sessionConfiguration.urlCache"
    }

    /// Which store a configuration had, as archived.
    enum StoreChoice: Int {
        /// No store (the property was nil).
        case absent = 0
        /// The process's shared store.
        case shared = 1
        /// A store of the configuration's own: decoded as a new in-memory store.
        case own = 2

        /// The choice `store` is, given the shared store.
        init(_ store: AnyObject?, shared: AnyObject) {
            guard let store else { self = .absent; return }
            self = store === shared ? .shared : .own
        }
    }

    /// The classes an archived response serializer may be made of: the serializers of this module.
    private static var serializerClasses: [AnyClass] {
        [
            NSArray.self, HTTPResponseSerializer.self, JSONResponseSerializer.self,
            PropertyListResponseSerializer.self, CompoundResponseSerializer.self,
        ]
    }

    /// What a manager's archive holds.
    struct Archived {
        var configuration: URLSessionConfiguration
        var responseSerializer: (any URLResponseSerialization)?
        var securityPolicy: SecurityPolicy?

        /// Decodes the archive (the configuration's stores as archived); nil without a configuration.
        init?(coder: NSCoder) {
            guard let configuration = coder.decodeObject(of: URLSessionConfiguration.self,
                                                         forKey: Key.sessionConfiguration) else { return nil }
            Self.restoreStores(of: configuration, from: coder)
            self.configuration = configuration
            responseSerializer = coder.decodeObject(of: URLSessionManager.serializerClasses,
                                                    forKey: Key.responseSerializer) as? any URLResponseSerialization
            securityPolicy = coder.decodeObject(of: SecurityPolicy.self, forKey: Key.securityPolicy)
        }

        /// Gives `configuration` the kind of stores the archive names (an archive without the choices, as
        /// older ones are, keeps the shared stores).
        private static func restoreStores(of configuration: URLSessionConfiguration, from coder: NSCoder) {
            let choice = { (key: String) -> StoreChoice? in
                coder.containsValue(forKey: key) ? StoreChoice(rawValue: coder.decodeInteger(forKey: key)) : nil
            }
            let fresh = URLSessionConfiguration.ephemeral
            switch choice(Key.cookieStore) {
            case .absent?: configuration.httpCookieStorage = nil
            case .own?: configuration.httpCookieStorage = fresh.httpCookieStorage
            case .shared?, nil: break
            }
            switch choice(Key.credentialStore) {
            case .absent?: configuration.urlCredentialStorage = nil
            case .own?: configuration.urlCredentialStorage = fresh.urlCredentialStorage
            case .shared?, nil: break
            }
            switch choice(Key.cacheStore) {
            case .absent?: configuration.urlCache = nil
            case .own?: configuration.urlCache = fresh.urlCache
            case .shared?, nil: break
            }
        }

        /// Gives `manager` the decoded serializer and policy (the defaults stay for what is missing).
        func apply(to manager: URLSessionManager) {
            if let responseSerializer { manager.responseSerializer = responseSerializer }
            if let securityPolicy { manager.securityPolicy = securityPolicy }
        }
    }

    /// `encode(with:)`'s work: the configuration with the kind of its stores, the serializer (when it can be
    /// archived: it conforms to `NSSecureCoding`) and the policy.
    func encodeManager(with coder: NSCoder) {
        coder.encode(sessionConfiguration, forKey: Key.sessionConfiguration)
        let stores = [
            (Key.cookieStore, StoreChoice(sessionConfiguration.httpCookieStorage, shared: HTTPCookieStorage.shared)),
            (Key.credentialStore,
             StoreChoice(sessionConfiguration.urlCredentialStorage, shared: URLCredentialStorage.shared)),
            (Key.cacheStore, StoreChoice(sessionConfiguration.urlCache, shared: URLCache.shared)),
        ]
        for (key, choice) in stores { coder.encode(choice.rawValue, forKey: key) }
        let (serializer, policy) = settings.withLock { ($0.responseSerializer, $0.securityPolicy) }
        if serializer is NSSecureCoding { coder.encode(serializer, forKey: Key.responseSerializer) }
        coder.encode(policy, forKey: Key.securityPolicy)
    }

    /// `copy(with:)`'s work: a manager of the same class from the configuration, with copies of the
    /// serializer and the policy.
    func makeCopy() -> URLSessionManager {
        let copy = type(of: self).init(sessionConfiguration: sessionConfiguration)
        copySettings(into: copy)
        return copy
    }

    /// Gives `copy` copies of this manager's response serializer and security policy. The policy is
    /// stored as it is, not through `securityPolicy`'s setter: this manager already accepted it, and a
    /// subclass's setter may judge it against state the copy does not have yet.
    func copySettings(into copy: URLSessionManager) {
        let (serializer, policy) = settings.withLock { ($0.responseSerializer, $0.securityPolicy) }
        let serializerCopy = (serializer as? NSCopying)?.copy(with: nil) as? any URLResponseSerialization
            ?? serializer
        let policyCopy = policy.copy() as? SecurityPolicy ?? policy
        copy.settings.withLock {
            $0.responseSerializer = serializerCopy
            $0.securityPolicy = policyCopy
        }
    }
}
