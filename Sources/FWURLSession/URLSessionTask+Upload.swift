import Foundation
import FWTransport

// MARK: - Upload bodies
//
// An upload task's body (and a data task's `httpBodyStream`) is produced afresh for every request the
// task sends: bytes are replayed, a file is read again from its start, and a stream is used once — every
// later send (a 307/308 hop, a resend on a new connection) asks the delegate's `needNewBodyStream`.

extension URLSessionTask {
    /// The body for sending `request` now, or nil to send the request's own `httpBody`.
    final func uploadBody(for request: URLRequest) throws(URLError) -> TransportRequestBody? {
        let (upload, originalStream) = guarded.withLock { state -> (UploadBody?, InputStream?) in
            guard case .stream = state.upload, !state.usedOriginalBodyStream else { return (state.upload, nil) }
            state.usedOriginalBodyStream = true
            return (state.upload, originalRequest?.httpBodyStream)
        }
        switch upload {
        case nil:
            return nil
        case .data(let data):
            return .bytes([UInt8](data))
        case .file(let url):
            return .stream(try FileBodyProducer.bodyStream(contentsOf: url))
        case .stream:
            let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            return .stream(InputStreamBodyProducer.bodyStream(originalStream, length: length) { [weak self] provide in
                guard let self else { return provide(nil) }
                self.askForNewBodyStream(provide)
            })
        }
    }

    /// `needNewBodyStream`, on the delegate queue; without a task delegate the body cannot be sent again.
    private func askForNewBodyStream(_ provide: @escaping @Sendable (InputStream?) -> Void) {
        session.delegateQueue.addOperation {
            guard let delegate = self.taskDelegate else { return provide(nil) }
            delegate.urlSession(self.session, task: self, needNewBodyStream: provide)
        }
    }
}
