import Foundation

// MARK: - Session lifecycle: announcing tasks, flush, reset
//
// Every task a session makes is announced to the delegate that hears `didCreateTask` (the first event of
// its delivery queue), when there is one as the task is made. The async methods give their delegate to the task before it is announced
// (`delegateAtCreation`), so that delegate hears it too. `flush` and `reset` work off the caller's thread
// and answer on the delegate queue; both retire the transport's connections (FWTransport's
// `HTTPTransport.retireConnections()`): idle ones close now, busy ones when their request ends.

extension URLSession {
    /// The delegate the async methods give the task they make, set for the duration of the making.
    @TaskLocal static var delegateAtCreation: (any URLSessionTaskDelegate)?

    /// Gives `task` the delegate of the async call making it, if any, then announces it when a delegate
    /// hears `didCreateTask` (a session nobody listens to spends nothing on it).
    final func announce(_ task: URLSessionTask) {
        if let delegate = Self.delegateAtCreation { task.delegate = delegate }
        if DelegateRouter.hearsDidCreateTask(task) { task.announceCreation() }
    }

    /// `flush(completionHandler:)`: storages are written as they change; connections are retired.
    final func performFlush(_ completionHandler: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { [self] in
            transport?.retireConnections()
            delegateQueue.addOperation(completionHandler)
        }
    }

    /// `reset(completionHandler:)`: every cookie, credential and cached response of the session's storages
    /// is removed and connections are retired.
    final func performReset(_ completionHandler: @escaping @Sendable () -> Void) {
        let configuration = sessionConfiguration
        DispatchQueue.global().async { [self] in
            if let cookies = configuration.httpCookieStorage {
                cookies.removeCookies(since: .distantPast)
            }
            if let credentials = configuration.urlCredentialStorage {
                for (space, byUser) in credentials.allCredentials {
                    for credential in byUser.values {
                        credentials.remove(credential, for: space, options: [
                            NSURLCredentialStorageRemoveSynchronizableCredentials: NSNumber(value: true),
                        ])
                    }
                }
            }
            configuration.urlCache?.removeAllCachedResponses()
            transport?.retireConnections()
            delegateQueue.addOperation(completionHandler)
        }
    }
}
