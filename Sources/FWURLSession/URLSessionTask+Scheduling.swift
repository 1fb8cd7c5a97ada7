import Foundation

// MARK: - Scheduling: creation, the earliest begin date, transfer-size hints, copying
//
// A task made by a session is announced to its delegate (`urlSession(_:didCreateTask:)`) as the first
// event of its delivery queue, so it comes before any other message of the task. A task with an
// `earliestBeginDate` waits for that date once resumed (a task resumed after it does not wait), then queues
// `begin`: on the delegate queue, after any suspension, the delegate answers `willBeginDelayedRequest`
// (`continueLoading`, `useNewRequest` with the request to load instead, or `cancel`) and the task begins —
// its resource timeout runs from then. Without a delegate that hears it, the task goes on.

/// A byte count nobody knows (FoundationNetworking's `NSURLSessionTransferSizeUnknown`): the default of
/// `countOfBytesClientExpectsToSend` and `countOfBytesClientExpectsToReceive`.
public let NSURLSessionTransferSizeUnknown: Int64 = -1

extension URLSessionTask: NSCopying {}

/// A task reports its `progress` (as FoundationNetworking's tasks declare).
extension URLSessionTask: ProgressReporting {}

extension URLSessionTask {
    /// Announces the task to the delegate that hears `didCreateTask` (the task's own when set at creation,
    /// as the async methods do, else the session's).
    func announceCreation() {
        enqueue(.created)
    }

    /// Queues `begin` at `date` on the session's clock (at once when it has passed).
    func scheduleBegin(at date: Date) {
        let deadline = session.clock.deadline(for: date)
        guard deadline > session.clock.now() else { return enqueue(.begin) }
        session.taskDeadlines.add(taskIdentifier, .begin, at: deadline)
    }

    /// The earliest begin date came (delegate queue): asks the delegate whether to begin.
    func beginDelayedRequest() {
        guard let request = currentRequest else { return }
        DelegateRouter.willBeginDelayedRequest(task: self, request) { disposition, newRequest in
            self.session.delegateQueue.addOperation { self.decideDelayedBegin(disposition, newRequest) }
        }
    }

    /// Applies the delegate's answer, unless the task was cancelled meanwhile.
    private func decideDelayedBegin(_ disposition: URLSession.DelayedRequestDisposition, _ newRequest: URLRequest?) {
        guard !isEnding else { return }
        switch disposition {
        case .continueLoading: begin()
        case .useNewRequest: begin(with: newRequest)
        case .cancel: cancel()
        }
    }
}

// MARK: - Delayed requests

extension URLSession {
    /// What a task with an earliest begin date does when it may begin (`willBeginDelayedRequest`).
    public enum DelayedRequestDisposition: Sendable {
        /// Cancel the task.
        case cancel
        /// Load the task's request as it is.
        case continueLoading
        /// Load the request given with the disposition instead (the current one when none is given).
        case useNewRequest
    }
}
