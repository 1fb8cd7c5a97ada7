import Foundation
import FWTransport

// MARK: - Metrics
//
// One `URLSessionTaskTransactionMetrics` per request the task sent (per redirect hop), made from the
// transport's metrics of that attempt; the task's `URLSessionTaskMetrics` gathers them when it completes.

extension URLSessionTask {
    /// One transaction for the current hop, from its transport metrics.
    func recordTransaction(_ metrics: TransportMetrics) {
        withTransfer { state in
            guard let request = state.hop.request, let clock = state.metricsClock else { return }
            state.transactions.append(URLSessionTaskTransactionMetrics(
                request: request, response: state.hop.response,
                fetchStart: state.hop.sentAt ?? state.fetchStart ?? Date(),
                transport: metrics, clock: clock, decodedBodyBytes: metrics.responseBodyBytes))
        }
    }

    /// The task's metrics: a transaction per request sent (a request that never reached a connection
    /// still gets one, without network times); nil when the task never started.
    func collectMetrics() -> URLSessionTaskMetrics? {
        let response = response
        let restarted = (self as? URLSessionDownloadTask)?.downloadSink.state.withLock { $0.restartedFromZero } ?? false
        return withTransfer { state -> URLSessionTaskMetrics? in
            guard let fetchStart = state.fetchStart, let clock = state.metricsClock,
                  let request = state.hop.request else { return nil }
            var transactions = state.transactions
            if transactions.isEmpty {
                transactions.append(URLSessionTaskTransactionMetrics(
                    request: request, response: response, fetchStart: state.hop.sentAt ?? fetchStart,
                    transport: nil, clock: clock, decodedBodyBytes: 0))
            }
            let end = max(fetchStart, clock.date())
            return URLSessionTaskMetrics(transactionMetrics: transactions,
                                         taskInterval: DateInterval(start: fetchStart, end: end),
                                         redirectCount: state.policies.redirectCount, restartedFromZero: restarted)
        }
    }
}

extension HTTPResponseHead {
    /// The head re-serialised with CRLF line ends: the bytes received, up to whitespace the parser
    /// trimmed and bare-LF line ends.
    var wireBytes: Data {
        var bytes = Data("\(version) \(status) ".utf8)
        bytes.append(contentsOf: reason.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        bytes.append(contentsOf: [13, 10])
        for index in 0..<headers.count {
            bytes.append(contentsOf: headers.rawName(at: index))
            bytes.append(contentsOf: [58, 32])
            bytes.append(contentsOf: headers.rawValue(at: index))
            bytes.append(contentsOf: [13, 10])
        }
        bytes.append(contentsOf: [13, 10])
        return bytes
    }
}
