import Foundation
import FWTransport

// MARK: - HTTPURLResponse from a parsed head

extension HTTPURLResponse {
    /// The response for `url` described by a parsed head, fields kept in wire order.
    convenience init(url: URL, head: HTTPResponseHead) {
        self.init(url: url, statusCode: head.status, httpVersion: head.version.description, wire: head.headers)
    }
}
