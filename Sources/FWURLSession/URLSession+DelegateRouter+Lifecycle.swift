import Foundation

// MARK: - The delegate router: task creation, delayed begins, interim responses, the async data messages
//
// The same per-message rule as the rest of the router (`URLSession+DelegateRouter.swift`): the task's own
// delegate when it conforms to the protocol that declares the message, else the session's delegate; the
// protocols' defaults hand a message the task's delegate did not implement on to the session's delegate.
//
// One exception: a task that collects its body for a completion handler or an async call tells no session
// delegate about its response and body. The async `data(for:delegate:)` family tells the delegate given to
// the call (the task's own) and nobody else (`TaskDelegateReportingSink`), so a data message that delegate
// does not implement goes nowhere.

extension DelegateRouter {
    /// Whether anybody hears `task`'s `didCreateTask` (asked when the task is made).
    static func hearsDidCreateTask(_ task: URLSessionTask) -> Bool {
        hears(.task, task: task)
    }

    /// `didCreateTask`, to the task's delegate, else the session's.
    static func didCreateTask(_ task: URLSessionTask) {
        delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(task.session, didCreateTask: task)
    }

    /// Asks whether a delayed task begins; without a delegate, `decide` gets `continueLoading` at once.
    static func willBeginDelayedRequest(task: URLSessionTask, _ request: URLRequest,
                                        decide: @escaping @Sendable (URLSession.DelayedRequestDisposition,
                                                                     URLRequest?) -> Void) {
        guard let delegate = delegate(of: task, (any URLSessionTaskDelegate).self) else {
            return decide(.continueLoading, nil)
        }
        delegate.urlSession(task.session, task: task, willBeginDelayedRequest: request, completionHandler: decide)
    }

    /// A background session delivered every event of the tasks it re-attached: to the session's delegate.
    static func didFinishEvents(forBackgroundURLSession session: URLSession) {
        session.delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: session)
    }

    static func didReceiveInformationalResponse(task: URLSessionTask, _ response: HTTPURLResponse) {
        delegate(of: task, (any URLSessionTaskDelegate).self)?.urlSession(task.session, task: task,
                                                                          didReceiveInformationalResponse: response)
    }

    // MARK: Data messages of tasks that collect their body

    /// Who hears the data messages of a task that collects its body: the task's own data delegate, or nobody
    /// (asked first, so that a call without one holds nothing and copies no body piece into `Data`).
    static func dataDelegate(ofCollecting task: URLSessionDataTask) -> (any URLSessionDataDelegate)? {
        task.delegate as? any URLSessionDataDelegate
    }

    /// For a data-message default running on `delegate`: the session's delegate to hand the message to, but
    /// only for a task whose data messages the session's delegate hears (one without a completion handler).
    static func dataFallback(from delegate: AnyObject, session: URLSession,
                             task: URLSessionDataTask) -> (any URLSessionDataDelegate)? {
        guard task.sink is DataDelegateSink else { return nil }
        return fallback(from: delegate, session: session, task: task, (any URLSessionDataDelegate).self)
    }
}
