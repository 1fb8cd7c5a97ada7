import Foundation

// MARK: - URLSessionDataCollectingDelegate
//
// FWNetworking addition. A data delegate that needs a task's whole body (the session manager serializes it)
// would otherwise append every `didReceive data` to a buffer of its own, with limits of its own or none. A
// delegate that conforms to this protocol lets the task collect the body instead, with the one collector the
// completion handlers use (`BodyCollector`: `httpResponseLimits.maxCollectedBodySize`, the decompression
// ratio), and hears the whole body once. Routed like every other message (`DelegateRouter`): the task's own
// delegate when it conforms, else the session's.

/// FWNetworking addition: a data delegate that is handed a data task's whole body, collected by the task.
///
/// A data or upload task without a completion handler whose routed delegate conforms (its own delegate,
/// else the session's) collects its body in memory within the session's `httpResponseLimits`: a body
/// announced or growing larger than `maxCollectedBodySize` ends the task with
/// `URLError.dataLengthExceedsMaximum`, as for a completion handler. The delegate still hears the response
/// and every `didReceive data`; after the last of them, when the task succeeded,
/// `urlSession(_:dataTask:didCollectBody:)` hands it the body, on the session's `delegateQueue`, before
/// `didFinishCollecting` and `didCompleteWithError`. A task that fails or is cancelled hands over nothing.
///
/// `urlSession(_:shouldCollectBodyOf:)`, asked when the response arrives, lets the delegate leave a task's body
/// uncollected (the session manager collects only for the tasks its factories made).
public protocol URLSessionDataCollectingDelegate: URLSessionDataDelegate {
    /// Whether `dataTask` collects its body for this delegate (true by default); asked once, when its final
    /// response arrives.
    func urlSession(_ session: URLSession, shouldCollectBodyOf dataTask: URLSessionDataTask) -> Bool
    /// The whole body `dataTask` received (empty for a response without one).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didCollectBody body: Data)
}

extension URLSessionDataCollectingDelegate {
    /// Every task collects its body by default.
    public func urlSession(_ session: URLSession, shouldCollectBodyOf dataTask: URLSessionDataTask) -> Bool {
        true
    }
}
