// Security's trust policies: what a trust evaluation checks beyond the chain itself.

import Foundation

// MARK: - SecPolicy

/// A trust policy (Security's SecPolicy), immutable.
///
/// - SSL for a server with a host name: the chain, then the leaf must identify the host (RFC 6125).
/// - SSL without a host name, SSL for a client, or basic X.509: the chain only.
public final class SecPolicy: Sendable, CustomStringConvertible {
    /// The host name the leaf must identify, or nil when the policy checks the chain only.
    let hostname: String?

    private let name: String

    private init(hostname: String?, name: String) {
        self.hostname = hostname
        self.name = name
    }

    /// Apple's SSL policy (server or client side).
    static func ssl(server: Bool, hostname: String?) -> SecPolicy {
        SecPolicy(hostname: server ? hostname : nil, name: server ? "SSL server" : "SSL client")
    }

    /// Apple's basic X.509 policy.
    static let basicX509 = SecPolicy(hostname: nil, name: "basic X.509")

    /// The policy and the host it checks, if any.
    public var description: String {
        "<SecPolicy \(name)\(hostname.map { " for \($0)" } ?? "")>"
    }
}

// MARK: - Functions

/// The policy for evaluating SSL certificate chains. For a server (`server` true) with a `hostname`,
/// the leaf must also identify that host; without one, only the chain is checked.
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    .ssl(server: server, hostname: hostname)
}

/// The default X.509 policy: the chain is checked, the host is not.
public func SecPolicyCreateBasicX509() -> SecPolicy {
    .basicX509
}
