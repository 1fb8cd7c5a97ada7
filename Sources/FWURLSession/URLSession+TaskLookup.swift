import Foundation
import FWTransport

// MARK: - Task lookup

extension URLSession {
    /// The task whose request `id` is, while that request runs (or waits for a connection) in this
    /// session's transport; nil for nil, for a request that ended, or when the transport never started.
    ///
    /// Tasks are the transport delegates of their requests, so the transport's request table answers;
    /// it knows a request from the moment `execute` returns its id, before any connection is made for it.
    func task(for id: RequestID?) -> URLSessionTask? {
        guard let id, let transport else { return nil }
        return transport.delegate(of: id) as? URLSessionTask
    }
}
