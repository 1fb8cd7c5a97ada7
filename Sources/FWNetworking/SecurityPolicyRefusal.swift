// SecurityPolicyRefusal: the error HTTPSessionManager.setSecurityPolicy(_:) throws for a pinning policy
// on a manager whose base URL is not https (AFNetworking raises an exception there).

import Foundation

// MARK: - SecurityPolicyRefusal

/// Why `HTTPSessionManager` refused a security policy: it pins, and the manager's base URL is not https.
public struct SecurityPolicyRefusal: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// The pinning mode of the refused policy.
    public let pinningMode: SSLPinningMode
    /// The manager's base URL (nil when it has none).
    public let baseURL: URL?

    /// What was refused and how to fix it.
    public var description: String {
        let mode = pinningMode == .certificate ? "certificate" : "public-key"
        let base = baseURL.map { "'\($0.absoluteString)'" } ?? "no base URL"
        return "a security policy with \(mode) pinning can only be applied to an HTTPSessionManager whose "
            + "base URL is https (it has \(base)); the previous policy is kept"
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
