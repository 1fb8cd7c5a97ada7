// URLSessionManager+Settings: the manager's properties (each read and written under `settings`' lock),
// the task lists, and invalidation.

import Foundation

// MARK: - Settings

extension URLSessionManager {
    /// Validates and serializes the responses of the tasks the factories make: any
    /// `URLResponseSerialization` conformer, as the seeds' protocol-typed property takes (FWFramework's Swift
    /// port narrows it to `HTTPResponseSerializer`; code written for the port still compiles). A
    /// `JSONResponseSerializer` by default.
    public var responseSerializer: any URLResponseSerialization {
        get { settings.withLock { $0.responseSerializer } }
        set { settings.withLock { $0.responseSerializer = newValue } }
    }

    /// The queue completion handlers run on; nil (the default) for the main queue, as the seeds say. Set it
    /// in a process that does not run the main queue. (The did-complete notification that follows a
    /// handler is posted on the main queue whatever this is, as seed 004 does.)
    public var completionQueue: DispatchQueue? {
        get { settings.withLock { $0.completionQueue } }
        set { settings.withLock { $0.completionQueue = newValue } }
    }

    /// The group completion handlers run in; nil (the default) for a group shared by every manager.
    public var completionGroup: DispatchGroup? {
        get { settings.withLock { $0.completionGroup } }
        set { settings.withLock { $0.completionGroup = newValue } }
    }

    /// Watches whether the network is reachable, for applications that hold requests back while it is
    /// not (the manager itself never consults it). `NetworkReachabilityManager.default` by default: nil
    /// where the process cannot watch the kernel's routes (see `NetworkReachabilityManager`), which is
    /// why this is optional here while the port's is not.
    public var reachabilityManager: NetworkReachabilityManager? {
        get { settings.withLock { $0.reachabilityManager } }
        set { settings.withLock { $0.reachabilityManager = newValue } }
    }

    /// AFNetworking retries making an upload task that a background session failed to make (an old iOS
    /// bug). In a durable session (`URLSessionConfiguration.background(withIdentifier:)`) making an upload
    /// task never returns nil: a task whose journal record cannot be written fails with that error when it
    /// runs, and one made from a file is re-created by the session itself in the next process. The value is
    /// kept so that code written for the seeds compiles and changes nothing. False by default.
    public var attemptsToRecreateUploadTasksForBackgroundSessions: Bool {
        get { settings.withLock { $0.attemptsToRecreateUploadTasksForBackgroundSessions } }
        set { settings.withLock { $0.attemptsToRecreateUploadTasksForBackgroundSessions = newValue } }
    }

    // MARK: Tasks

    /// The data, upload and download tasks of the session that have not completed, in the order they were
    /// made. A synchronous snapshot (`URLSession.currentTasks`): it never waits for the operation queue, so
    /// it may be read from a delegate message or a completion handler.
    public var tasks: [URLSessionTask] {
        session.currentTasks
    }

    /// The data tasks (not the upload tasks) of `tasks`.
    public var dataTasks: [URLSessionDataTask] {
        tasks.compactMap { $0 as? URLSessionDataTask }.filter { !($0 is URLSessionUploadTask) }
    }

    /// The upload tasks of `tasks`.
    public var uploadTasks: [URLSessionUploadTask] {
        tasks.compactMap { $0 as? URLSessionUploadTask }
    }

    /// The download tasks of `tasks`.
    public var downloadTasks: [URLSessionDownloadTask] {
        tasks.compactMap { $0 as? URLSessionDownloadTask }
    }

    // MARK: Invalidating

    /// Invalidates the session: cancels its tasks when `cancelPendingTasks`, else lets them finish. With
    /// `resetSession`, `session` is a new session from the same configuration afterwards (the old one
    /// still reports its last messages, and its invalidation, to this manager). Without it the manager
    /// keeps the invalidated session, and a factory called from then on returns a task that has already
    /// failed: its completion handler gets `URLError.unknown` saying the session was invalidated, at once
    /// (URLSession raises an exception for a task made on an invalidated session; a manager must not).
    public func invalidateSessionCancelingTasks(_ cancelPendingTasks: Bool, resetSession: Bool) {
        let current = session
        settings.withLock { settings in
            guard settings.session === current else { return }
            if resetSession {
                settings.session = nil
                settings.sessionInvalidated = false
            } else {
                settings.sessionInvalidated = true
            }
        }
        if cancelPendingTasks {
            current.invalidateAndCancel()
        } else {
            current.finishTasksAndInvalidate()
        }
    }

    /// Whether `session` was invalidated and kept, so that the factories cannot run tasks on it.
    var sessionIsInvalidated: Bool {
        settings.withLock { $0.sessionInvalidated }
    }

    /// `invalidated` is no longer usable: remembered when it is the managed session.
    func sessionBecameUnusable(_ invalidated: URLSession) {
        settings.withLock { settings in
            if settings.session === invalidated { settings.sessionInvalidated = true }
        }
    }
}
