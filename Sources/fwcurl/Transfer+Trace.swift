import Foundation
import FWNetworking

// MARK: - Transfer: trace, challenges and metrics

/// The task's trace, challenge and metrics messages, handed to its `FetchTrace` (the response head also
/// feeds `-i`, in `Transfer.swift`); what they teach goes into the transfer's `TransferRecord`. A server's
/// Basic or Digest challenge goes to the plan's `HTTPAuthPolicy` when `-u` was given, a proxy's when `-U`
/// came with `--proxy-digest` or `--proxy-anyauth`.
extension Transfer {
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let policies = [plan.authentication, plan.proxyAuthentication].compactMap { $0 }
        if let authentication = policies.first(where: { $0.decides(challenge) }) {
            let credential = withState(session) { state -> URLCredential? in
                let refusedBefore = state.refusedAuthentication.map { $0 === challenge.failureResponse } ?? false
                let credential = refusedBefore ? nil : authentication.credential(for: challenge)
                if credential == nil { state.refusedAuthentication = challenge.failureResponse }
                return credential
            }
            return completionHandler(credential == nil ? .rejectProtectionSpace : .useCredential, credential)
        }
        let (disposition, credential) = trace.answer(challenge) { finding in
            switch finding {
            case .rejected(let rejection): withState(session) { $0.record.trustRejection = rejection }
            case .transparency(let found): withState(session) { $0.record.transparency = found }
            }
        }
        completionHandler(disposition, credential)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        let summary = trace.collected(metrics)
        let violations = metrics.transactionMetrics.last?.fwResponseDeviations ?? []
        let transparency = metrics.transactionMetrics.last?.fwCertificateTransparency
        withState(session) {
            if let summary { $0.record.tls = summary }
            if let transparency { $0.record.transparency = transparency }
            $0.record.violations = violations
        }
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

    func urlSession(_ session: URLSession, task: URLSessionTask, didEmitTraceEvent event: URLSessionTaskTraceEvent) {
        trace.emitted(event)
    }

    /// Chunk events only for `--trace-json`: `-v` and the progress meter keep one body piece per read.
    var tracesChunks: Bool { trace.writesEventTrace }

    func urlSession(_ session: URLSession, task: URLSessionTask, didSendRequestHead head: Data) {
        trace.sentRequestHead(head)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask,
                    didReceiveTrailers trailers: [(name: String, value: String)]) {
        withState(session) { $0.record.trailers = trailers }
    }
}
