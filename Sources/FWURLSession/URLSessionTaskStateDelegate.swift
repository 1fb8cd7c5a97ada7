import Foundation

// MARK: - URLSessionTaskStateDelegate
//
// FWNetworking addition. AFNetworking learns that a task was resumed or suspended by swizzling
// `resume` and `suspend` (there is no delegate message for it, and Linux has no Objective-C runtime to
// swizzle); here the task tells its delegate, routed like every other message (`DelegateRouter`): the
// task's own delegate when it conforms, else the session's, and a default implementation on a task's own
// delegate hands the message on to the session's delegate.

/// FWNetworking addition: hears when `resume()` or `suspend()` changes a task's state.
///
/// `urlSession(_:taskDidResume:)` follows a `resume()` that made the task run (its first start, or the
/// last `resume()` of nested suspensions); `urlSession(_:taskDidSuspend:)` follows a `suspend()` that
/// stopped a running task. Calls that change nothing (a second `resume()`, `suspend()` before the first
/// start, anything after `cancel()`) send no message. Both arrive on the session's `delegateQueue`; on a
/// serial queue, before any later message of the task.
public protocol URLSessionTaskStateDelegate: URLSessionTaskDelegate {
    /// `resume()` made `task` run.
    func urlSession(_ session: URLSession, taskDidResume task: URLSessionTask)
    /// `suspend()` stopped the running `task`.
    func urlSession(_ session: URLSession, taskDidSuspend task: URLSessionTask)
}

extension URLSessionTaskStateDelegate {
    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, taskDidResume task: URLSessionTask) {
        stateFallback(session, task)?.urlSession(session, taskDidResume: task)
    }

    /// Tells the session delegate when this is the task's own delegate; else does nothing.
    public func urlSession(_ session: URLSession, taskDidSuspend task: URLSessionTask) {
        stateFallback(session, task)?.urlSession(session, taskDidSuspend: task)
    }

    private func stateFallback(_ session: URLSession, _ task: URLSessionTask) -> (any URLSessionTaskStateDelegate)? {
        DelegateRouter.fallback(from: self, session: session, task: task, (any URLSessionTaskStateDelegate).self)
    }
}
