import Foundation
import FWNetworking

// MARK: - Transfer: trace, challenges and metrics

/// The task's trace, challenge and metrics messages, handed to its `FetchTrace` (the response head also
/// feeds `-i`, in `Transfer.swift`); what they teach goes into the transfer's `TransferRecord`.
extension Transfer {
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let (disposition, credential) = trace.answer(challenge) { reason in
            withState(session) { $0.record.trustRejection = reason }
        }
        completionHandler(disposition, credential)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        let summary = trace.collected(metrics)
        if let summary { withState(session) { $0.record.tls = summary } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didUseConnectionTo remoteAddress: String?,
                    reused: Bool) {
        trace.connected(to: remoteAddress, reused: reused)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didWriteBytes bytes: Data) {
        trace.wrote(bytes)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReadBytes bytes: Data) {
        trace.read(bytes)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendRequestHead head: Data) {
        trace.sentRequestHead(head)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceiveTrailers trailers: [(name: String, value: String)]) {
        withState(session) { $0.record.trailers = trailers }
    }
}
