// URLSessionManager+Coding: archiving and copying a manager (seed 000, "NSCoding Caveats" and "NSCopying
// Caveats"). Both carry the session configuration and, beyond what AFURLSessionManager carries (its HTTP
// subclass adds them), the response serializer and the security policy; never the blocks, which often
// capture the original manager. A copy or a decoded manager makes its own session on first use.

import Foundation

extension URLSessionManager {
    private enum Key {
        static let sessionConfiguration = "sessionConfiguration"
        static let responseSerializer = "responseSerializer"
        static let securityPolicy = "securityPolicy"
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
        var responseSerializer: HTTPResponseSerializer?
        var securityPolicy: SecurityPolicy?

        /// Decodes the archive; nil without a configuration.
        init?(coder: NSCoder) {
            guard let configuration = coder.decodeObject(of: URLSessionConfiguration.self,
                                                         forKey: Key.sessionConfiguration) else { return nil }
            self.configuration = configuration
            responseSerializer = coder.decodeObject(of: URLSessionManager.serializerClasses,
                                                    forKey: Key.responseSerializer) as? HTTPResponseSerializer
            securityPolicy = coder.decodeObject(of: SecurityPolicy.self, forKey: Key.securityPolicy)
        }

        /// Gives `manager` the decoded serializer and policy (the defaults stay for what is missing).
        func apply(to manager: URLSessionManager) {
            if let responseSerializer { manager.responseSerializer = responseSerializer }
            if let securityPolicy { manager.securityPolicy = securityPolicy }
        }
    }

    /// `encode(with:)`'s work: the configuration, the serializer (when it can be archived) and the policy.
    func encodeManager(with coder: NSCoder) {
        coder.encode(sessionConfiguration, forKey: Key.sessionConfiguration)
        let (serializer, policy) = settings.withLock { ($0.responseSerializer, $0.securityPolicy) }
        coder.encode(serializer, forKey: Key.responseSerializer)
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
        let serializerCopy = serializer.copy() as? HTTPResponseSerializer ?? serializer
        let policyCopy = policy.copy() as? SecurityPolicy ?? policy
        copy.settings.withLock {
            $0.responseSerializer = serializerCopy
            $0.securityPolicy = policyCopy
        }
    }
}
