// HTTPCookieStorage+Task.swift
//
// The task-based variants of HTTPCookieStorage (Apple's names; FoundationNetworking lacks them), which
// read the URL of the task's current request (the original request before the task started), and the
// notification names, with Foundation's raw values. The completion handlers run at once, on the caller's
// thread.

import Foundation

// MARK: - Task variants

extension HTTPCookieStorage {
    /// Stores cookies set by the response to `task`'s current request, following the accept policy (the
    /// main document URL is that request's `mainDocumentURL`).
    public func storeCookies(_ cookies: [HTTPCookie], for task: URLSessionTask) {
        let request = task.currentRequest ?? task.originalRequest
        setCookies(cookies, for: request?.url, mainDocumentURL: request?.mainDocumentURL)
    }

    /// Calls `completionHandler` with the cookies `task`'s current request sends (nil without a URL).
    public func getCookiesFor(_ task: URLSessionTask, completionHandler: ([HTTPCookie]?) -> Void) {
        completionHandler(cookies(forTask: task))
    }

    /// The cookies `task`'s current request sends (nil without a URL).
    public func cookies(for task: URLSessionTask) async -> [HTTPCookie]? {
        cookies(forTask: task)
    }

    private func cookies(forTask task: URLSessionTask) -> [HTTPCookie]? {
        (task.currentRequest ?? task.originalRequest)?.url.flatMap { cookies(for: $0) }
    }
}

// MARK: - Notifications

extension NSNotification.Name {
    /// Posted (object: the storage) when the cookies of a storage change.
    public static let NSHTTPCookieManagerCookiesChanged =
        NSNotification.Name(rawValue: "NSHTTPCookieManagerCookiesChangedNotification")

    /// Posted (object: the storage) when a storage's accept policy changes.
    public static let NSHTTPCookieManagerAcceptPolicyChanged =
        NSNotification.Name(rawValue: "NSHTTPCookieManagerAcceptPolicyChangedNotification")
}
