// HTTPSessionManager+Coding: archiving and copying an HTTP session manager. Both carry what
// URLSessionManager's carry (the session configuration, the response serializer, the security policy;
// never the blocks) plus, as AFHTTPSessionManager's do, the base URL and the request serializer.
//
// The base URL is given to the initializer before the security policy is applied, so that a pinning
// policy archived with an https base URL is accepted again (the setter refuses pinning without one).

import Foundation

extension HTTPSessionManager {
    private enum Key {
        static let baseURL = "baseURL"
        static let requestSerializer = "requestSerializer"
    }

    /// The classes an archived request serializer may be made of: the request serializers of this module.
    private static var requestSerializerClasses: [AnyClass] {
        [HTTPRequestSerializer.self, JSONRequestSerializer.self, PropertyListRequestSerializer.self]
    }

    /// What an HTTP manager's archive holds.
    struct ArchivedHTTP {
        var manager: Archived
        var baseURL: URL?
        var requestSerializer: HTTPRequestSerializer?

        /// Decodes the archive; nil without a configuration.
        init?(coder: NSCoder) {
            guard let manager = Archived(coder: coder) else { return nil }
            self.manager = manager
            baseURL = coder.decodeObject(of: NSURL.self, forKey: Key.baseURL).map { $0 as URL }
            requestSerializer = coder.decodeObject(of: HTTPSessionManager.requestSerializerClasses,
                                                   forKey: Key.requestSerializer) as? HTTPRequestSerializer
        }

        /// Gives `manager` the decoded serializers and policy (the defaults stay for what is missing).
        func apply(to manager: HTTPSessionManager) {
            self.manager.apply(to: manager)
            if let requestSerializer { manager.requestSerializer = requestSerializer }
        }
    }

    /// `encode(with:)`'s work: the manager's archive, the base URL and the request serializer.
    func encodeHTTPManager(with coder: NSCoder) {
        encodeManager(with: coder)
        if let baseURL { coder.encode(baseURL as NSURL, forKey: Key.baseURL) }
        coder.encode(requestSerializer, forKey: Key.requestSerializer)
    }

    /// `copy(with:)`'s work: a manager of the same class for the same base URL and configuration, with
    /// copies of the serializers and the policy.
    func makeHTTPCopy() -> HTTPSessionManager {
        let copy = type(of: self).init(sessionConfiguration: sessionConfiguration)
        copy.baseURL = baseURL
        copySettings(into: copy)
        let serializer = requestSerializer
        copy.requestSerializer = serializer.copy() as? HTTPRequestSerializer ?? serializer
        return copy
    }
}
