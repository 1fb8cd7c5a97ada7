import Foundation
import FWTransport

// MARK: - Metrics
//
// One transaction per request the task sent (per redirect hop), recorded as it happened (`TransactionRecord`:
// the request, the response, the transport's metrics of that attempt); the task's `URLSessionTaskMetrics` and
// its `URLSessionTaskTransactionMetrics` objects are made from the records when the task completes, and only
// when a delegate hears `didFinishCollecting` — a task with a completion handler and no delegate makes none.

/// What one transaction's metrics are made from.
struct TransactionRecord {
    var request: URLRequest
    var response: URLResponse?
    var fetchStart: Date
    var transport: TransportMetrics? = nil
    var decodedBodyBytes: Int64
    var fetchType: URLSessionTaskMetrics.ResourceFetchType? = nil

    /// The transaction's metrics, its transport times dated on `clock`.
    func metrics(clock: SessionClock) -> URLSessionTaskTransactionMetrics {
        URLSessionTaskTransactionMetrics(request: request, response: response, fetchStart: fetchStart,
                                         transport: transport, clock: clock, decodedBodyBytes: decodedBodyBytes,
                                         fetchType: fetchType)
    }
}

extension URLSessionTask {
    /// One transaction for the current hop, from its transport metrics.
    func recordTransaction(_ metrics: TransportMetrics) {
        withTransfer { state in
            guard let request = state.hop.request, let fetchStart = state.hop.sentAt ?? state.fetchStart else { return }
            state.transactions.append(TransactionRecord(
                request: request, response: state.hop.response, fetchStart: fetchStart, transport: metrics,
                decodedBodyBytes: metrics.responseBodyBytes))
        }
    }

    /// The task's metrics: a transaction per request sent (a request that never reached a connection
    /// still gets one, without network times); nil when the task never started.
    func collectMetrics() -> URLSessionTaskMetrics? {
        let response = response
        let restarted = read(\.sink.download?.restartedFromZero) ?? false
        let collected = withTransfer { state -> ([TransactionRecord], Date, SessionClock, Int)? in
            guard let fetchStart = state.fetchStart, let clock = state.metricsClock,
                  let request = state.hop.request else { return nil }
            var records = state.transactions
            if records.isEmpty {
                records.append(TransactionRecord(request: request, response: response,
                                                 fetchStart: state.hop.sentAt ?? fetchStart, decodedBodyBytes: 0))
            }
            return (records, fetchStart, clock, state.policies.redirectCount)
        }
        guard let (records, fetchStart, clock, redirectCount) = collected else { return nil }
        let end = max(fetchStart, clock.date())
        return URLSessionTaskMetrics(transactionMetrics: records.map { $0.metrics(clock: clock) },
                                     taskInterval: DateInterval(start: fetchStart, end: end),
                                     redirectCount: redirectCount, restartedFromZero: restarted)
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
