// EventLoop+Closing: descriptors closed after the iteration's work (step 6 of EventLoop.swift's list).
//
// Closing a connected TCP socket is not cheap: on loopback the caller's close(2) also runs the FIN's
// delivery to the peer and wakes it (~25 µs here, a seventh of a new connection's client time). A connection
// that ends while its loop reads a response (the peer said `Connection: close`) used to close there, before
// the response was delivered; the delivery then starts the next request, whose connect and write waited for
// that close. Closed at the end of the iteration instead, after the deliveries and the writes they caused, the
// close overlaps the wait for the next answer. The owner stops using the descriptor at once (a `Socket` reads
// -1 from then on) and has deregistered it; the number is not reused before the close, and the loop closes
// everything it was given before it waits for events again, and when it stops.

extension EventLoop {
    /// Takes `fd` to close at the end of the current iteration, after its end-of-iteration work, and before
    /// the loop waits for events again. Loop thread only; `fd` must not be registered (`deregister` first) nor
    /// used by the caller afterwards.
    public func closeAfterIteration(_ fd: Int32) {
        preconditionInEventLoop()
        closingAfterIteration.append(fd)
    }

    /// Closes what `closeAfterIteration` was given (loop thread).
    func closeDescriptorsClosedThisIteration() {
        guard !closingAfterIteration.isEmpty else { return }
        for fd in closingAfterIteration {
            Syscall.close(fd)
        }
        closingAfterIteration.removeAll(keepingCapacity: closingAfterIteration.count <= Self.keptListCapacity)
    }
}
