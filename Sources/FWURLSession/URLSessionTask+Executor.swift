import Foundation
import FWTransport

// MARK: - The task as its machine's executor
//
// Every change to a task's lifecycle, deliveries and counts is an input of its `TaskStateMachine`, applied
// under the task's lock (`core`); what the input returns (`TaskActions`) runs here, after the lock. Inputs
// come from any thread: the caller (`resume`, `suspend`, `cancel`), a loop thread (the transport's events), a
// URL protocol's thread, the delegate queue (the drain, a delegate's answer). No delegate, sink or transport
// is ever called with the lock held. The transfer (the hop and what the policies keep) sits in the same lock
// and is read and changed through `withTransfer`, by the policy walks and their executors; those changes are
// not machine inputs yet. The doors to the lock are at the end of this file.

extension URLSessionTask: TransportTaskDelegate {
    /// Called by the transport on a loop thread.
    public func transportTask(_ id: RequestID, didReceive event: TransportEvent) {
        apply { $0.received(event, from: id) }
    }

    /// Called by the transport on a loop thread: one loop iteration's events, moved into the task's queue
    /// under one lock and drained by one hop to the delegate queue.
    public func transportTask(_ id: RequestID, didReceive events: inout [TransportEvent]) {
        apply { $0.received(&events, from: id) }
    }

    /// Runs what an input of the machine asked for, in `TaskActions`' order.
    final func run(_ actions: TaskActions) {
        if let request = actions.cancelRequest { session.transport?.cancel(request) }
        if actions.stopProtocolLoad { stopProtocolLoad() }
        if let pause = actions.readingPause {
            session.transport?.setReadingPaused(pause.paused, for: pause.request, version: pause.version)
        }
        if actions.scheduleDrain { session.deliveryPump.schedule(self) }
        if actions.start { startLoading() }
    }

    /// Queues `event` for the drain.
    final func enqueue(_ event: TaskEvent) {
        apply { $0.enqueue(event) }
    }

    /// Holds delivery while the delegate answers a question.
    final func hold(_ hold: DeliveryQueue.Hold) {
        update { $0.hold(hold) }
    }

    /// Lifts `hold` and lets delivery go on.
    final func release(_ hold: DeliveryQueue.Hold) {
        apply { $0.release(hold) }
    }

    /// The transport accepted the current hop's request as `id`.
    final func accepted(_ id: RequestID) {
        apply { $0.accepted(id) }
    }

    /// The transport request of the current hop, once accepted.
    final var requestID: RequestID? { read(\.machine.requestID) }

    /// Whether the task was cancelled or completed (then only replies and the completion go out).
    final var isEnding: Bool { read(\.machine.isEnding) }

    /// Delivers the queued events (delegate queue; `DeliveryPump` runs it).
    final func drain() {
        while true {
            // `following`: the hop is being replaced (a redirect followed, a challenge answered); `traced`: the
            // hop is traced (`URLSessionTask+Trace.swift`).
            let (delivery, actions, following, traced) = core.withLock { core in
                let (delivery, actions) = core.machine.nextDelivery()
                return (delivery, actions, core.transfer.hop.next != nil, core.transfer.trace.enabled)
            }
            run(actions)
            switch consume delivery {
            case nil: return
            case .forward(let event, let successor): successor.adopt(event)
            case .deliver(let event, let ending):
                handle(event, ending: ending, following: following, traced: traced)
            }
        }
    }
}

extension URLSessionTask {
    /// `.becomeDownload`, `.becomeStream`: moves this task's state into `successor`: the machine (see
    /// `TaskStateMachine.handOver`), the caller's properties, and with `keepingTransfer` the whole transfer
    /// (else only the current request). This task ends without a completion and forwards its later events.
    /// False when this task was cancelled or completed first.
    final func handOver(to successor: URLSessionTask, keepingTransfer: Bool) -> Bool {
        guard let moved = core.withLock({ core -> TaskCore? in
            guard !core.machine.isEnding else { return nil }
            let machine = core.machine.handOver(to: successor, keepingTransfer: keepingTransfer)
            // The successor's sink state is its own (filled in below).
            let moved = TaskCore(machine: machine, transfer: core.transfer, sink: SinkState(),
                                 properties: core.properties)
            core.transfer.hop.dropBodies() // a task that was handed over keeps no body
            core.sink.letGo()
            return moved
        }) else { return false }
        successor.core.withLock { core in
            var moved = moved
            moved.sink = core.sink
            if !keepingTransfer {
                moved.machine.counts = core.machine.counts
                let request = moved.transfer.currentRequest
                moved.transfer = core.transfer
                moved.transfer.currentRequest = request
            }
            core = moved
        }
        return true
    }
}

// MARK: - The doors to the core
//
// The task's state is reached through these doors only (and the drain and the hand-over above): a machine
// input (`update`, or `apply` when it returns actions), one field (`read`, `write`), the transfer
// (`withTransfer`), the sink's state (`withSink`), or the whole core for a step that reads or changes several
// of them at once (`withCore`: `finish`, `transmit`), so that it takes the lock once. What runs under the lock
// is a machine input, a key path or an edit; the lock is a leaf, so none of them may call out.

extension URLSessionTask {
    /// Applies an input to the task's machine under the lock and returns what it returned.
    final func update<Result>(_ input: (inout TaskStateMachine) -> Result) -> Result {
        core.withLock { input(&$0.machine) }
    }

    /// Applies an input to the task's machine under the lock, then runs the actions it asked for.
    final func apply(_ input: (inout TaskStateMachine) -> TaskActions) {
        run(update(input))
    }

    /// One field of the task's state, read under the lock.
    final func read<Value>(_ field: KeyPath<TaskCore, Value>) -> Value {
        core.withLock { $0[keyPath: field] }
    }

    /// Sets one field of the task's state under the lock.
    final func write<Value>(_ field: WritableKeyPath<TaskCore, Value>, _ value: Value) {
        core.withLock { $0[keyPath: field] = value }
    }

    /// Reads or changes the transfer (the hop, the policies' state, metrics, the upload body) under the lock.
    final func withTransfer<Result>(_ body: (inout TaskTransfer) -> Result) -> Result {
        core.withLock { body(&$0.transfer) }
    }

    /// Reads or changes several parts of the task's state under one lock (a machine input with the transfer
    /// or the caller's properties).
    final func withCore<Result>(_ body: (inout TaskCore) -> Result) -> Result {
        core.withLock(body)
    }

    /// Reads or changes what the task's sink keeps (`SinkState`) under the lock.
    final func withSink<Result>(_ body: (inout SinkState) -> Result) -> Result {
        core.withLock { body(&$0.sink) }
    }
}
