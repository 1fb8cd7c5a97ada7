// EventLoopHost: what runs a hosted event loop (EventLoop+Hosted.swift) when it has work.

/// Runs a hosted `EventLoop`'s slices: a loop with no thread of its own asks its host for a slice when work
/// arrives while it is parked, and when it yields.
///
/// The host must call `loop.runSlice()` soon after each request, from one thread at a time (slices never
/// overlap); a serial operation queue does this by adding one operation per request.
public protocol EventLoopHost: AnyObject, Sendable {
    /// Any thread, never under the loop's locks: `loop` wants a slice (call `loop.runSlice()` once).
    func scheduleSlice(of loop: EventLoop)
}
