// URLCredentialStorage+Task.swift
//
// The task-based variants of URLCredentialStorage, with FoundationNetworking's signatures (the task is
// not consulted: credentials are per protection space), Apple's async forms, the change notification
// and the removal option's key. Completion handlers run at once, on the caller's thread.

import Foundation

// MARK: - Task variants

extension URLCredentialStorage {
    /// Calls `completionHandler` with the credentials stored for `protectionSpace`, by user name.
    public func getCredentials(for protectionSpace: URLProtectionSpace, task: URLSessionTask,
                               completionHandler: ([String: URLCredential]?) -> Void) {
        completionHandler(credentials(for: protectionSpace))
    }

    /// The credentials stored for `protectionSpace`, by user name (empty when there are none).
    public func credentials(for protectionSpace: URLProtectionSpace, task: URLSessionTask) async
        -> [String: URLCredential] {
        credentials(for: protectionSpace) ?? [:]
    }

    /// Stores `credential` for `protectionSpace`, as `set(_:for:)` does.
    public func set(_ credential: URLCredential, for protectionSpace: URLProtectionSpace, task: URLSessionTask) {
        set(credential, for: protectionSpace)
    }

    /// Removes `credential` from `protectionSpace`, as `remove(_:for:options:)` does.
    public func remove(_ credential: URLCredential, for protectionSpace: URLProtectionSpace,
                       options: [String: AnyObject]? = [:], task: URLSessionTask) {
        remove(credential, for: protectionSpace, options: options)
    }

    /// Calls `completionHandler` with the default credential for `space`, if any.
    public func getDefaultCredential(for space: URLProtectionSpace, task: URLSessionTask,
                                     completionHandler: (URLCredential?) -> Void) {
        completionHandler(defaultCredential(for: space))
    }

    /// The default credential for `space`, if any.
    public func defaultCredential(for space: URLProtectionSpace, task: URLSessionTask) async -> URLCredential? {
        defaultCredential(for: space)
    }

    /// Stores `credential` for `protectionSpace` as its default, as `setDefaultCredential(_:for:)` does.
    public func setDefaultCredential(_ credential: URLCredential, for protectionSpace: URLProtectionSpace,
                                     task: URLSessionTask) {
        setDefaultCredential(credential, for: protectionSpace)
    }
}

// MARK: - Notification and option

extension NSNotification.Name {
    /// Posted (object: the storage) when the credentials of a storage change.
    public static let NSURLCredentialStorageChanged =
        NSNotification.Name(rawValue: "NSURLCredentialStorageChangedNotification")
}

/// The `remove(_:for:options:)` option (an NSNumber Bool) that allows removing a `.synchronizable`
/// credential.
public let NSURLCredentialStorageRemoveSynchronizableCredentials: String =
    "NSURLCredentialStorageRemoveSynchronizableCredentials"
