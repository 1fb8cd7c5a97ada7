import FWLoop
import FWTransport

// MARK: - StreamedUpload

/// Bridges a request's `.stream` body to the transport: each `produce` the connection asks for runs the
/// caller's async function on a task and answers the sink; `stop` cancels the task that is running.
final class StreamedUpload: TransportBodyProducer {
    private let produce: @Sendable (_ maxLength: Int) async throws -> [UInt8]?
    /// The task answering the current `produce`, if one runs; guarded by its lock.
    private let running = LockedBox<Task<Void, Never>?>(nil)

    init(produce: @escaping @Sendable (_ maxLength: Int) async throws -> [UInt8]?) {
        self.produce = produce
    }

    func produce(maxLength: Int, into sink: TransportBodySink) {
        let produce = self.produce
        let task = Task {
            do {
                while true {
                    guard let piece = try await produce(maxLength) else { return sink.finish() }
                    guard piece.isEmpty else {
                        return piece.count <= maxLength ? sink.write(piece)
                            : sink.fail("the body stream gave \(piece.count) bytes, more than the \(maxLength) asked for")
                    }
                }
            } catch {
                sink.fail("the body stream failed: \(error)")
            }
        }
        running.withLock { $0 = task }
    }

    func stop() {
        running.withLock { $0 }?.cancel()
    }
}
