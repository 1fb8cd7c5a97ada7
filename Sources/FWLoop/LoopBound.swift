// LoopBound: carries a loop-confined value across threads without letting them touch it.

/// A value that may travel to other threads but is only read on its event loop's thread.
public struct LoopBound<Value>: @unchecked Sendable { // the value is only reachable on its loop (checked)
    /// Only read on `loop`'s thread: both `init` and `value` check it.
    private let storage: Value
    /// The loop whose thread may use the value.
    public let loop: EventLoop

    /// Binds `value` to `loop`; must be created on `loop`.
    public init(_ value: Value, loop: EventLoop) {
        loop.preconditionInEventLoop()
        self.storage = value
        self.loop = loop
    }

    /// The value; only on `loop`'s thread.
    public var value: Value {
        loop.preconditionInEventLoop()
        return storage
    }
}
