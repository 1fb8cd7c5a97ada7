import FWTransport

// MARK: - HTTPClientMetrics

/// What a request cost, hop by hop: the facts URLSessionTaskMetrics holds (lookup, connect, TLS, request
/// and response times on the monotonic clock in nanoseconds, reuse, addresses, byte counts, the TLS version
/// and cipher).
public struct HTTPClientMetrics: Sendable {
    /// One entry per connection attempt that reached the transport, in order (a redirect adds one, a
    /// retried attempt on a new connection adds one).
    public let transactions: [TransportMetrics]

    /// Creates metrics from transactions.
    public init(transactions: [TransportMetrics]) {
        self.transactions = transactions
    }

    /// The last transaction: the one the response came from.
    public var last: TransportMetrics? { transactions.last }

    /// Nanoseconds from the first transaction's start (lookup, connect or request) to the last response
    /// byte; nil until the body ended.
    public var totalNanoseconds: UInt64? {
        guard let first = transactions.first, let end = transactions.last?.responseEnd else { return nil }
        guard let start = first.domainLookupStart ?? first.connectStart ?? first.requestStart, end >= start
        else { return nil }
        return end - start
    }
}
