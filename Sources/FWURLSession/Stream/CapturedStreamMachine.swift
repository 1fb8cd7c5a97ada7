import Foundation
import FWTransport

// MARK: - CapturedStreamMachine
//
// The state of one half of a captured stream task (`StreamTaskInputStream`, `StreamTaskOutputStream`): its
// `Stream.Status` and the error that ended it, as a value type. The stream feeds it one input at a time
// under its one lock (`CapturedStreamState`) and makes the channel call the input asks for after the lock
// (a read or write waits for the channel's reply on the calling thread, so it must never hold the lock).
// Every row is a table test (`CapturedStreamMachineTests`).
//
//   notOpen ──open──▶ open ──a read reached the end──▶ atEnd
//                      │
//                      └──a read or write failed──▶ error
//   any ──close──▶ closed (the channel's half is shut the first time only; `open` leaves a closed half closed)
//
// A read or write is made only while `open`; otherwise a read returns 0 at the end and -1 else, a write -1.

struct CapturedStreamMachine {
    private(set) var status = Stream.Status.notOpen
    private(set) var failure: (any Error)?

    /// Whether bytes may be read or written (`hasBytesAvailable`, `hasSpaceAvailable`).
    var isOpen: Bool { status == .open }

    /// Opens a half that was never opened (a closed half stays closed).
    mutating func open() {
        if status == .notOpen { status = .open }
    }

    /// Closes the half; true when it was not closed already: shut the channel's half.
    mutating func close() -> Bool {
        defer { status = .closed }
        return status != .closed
    }

    /// Before a read or write: nil to go on, else what the call returns without touching the channel.
    func transfer() -> Int? {
        guard status == .open else { return status == .atEnd ? 0 : -1 }
        return nil
    }

    /// A read that reached the end of the stream.
    mutating func readReachedEnd() {
        status = .atEnd
    }

    /// Ends the half with the connection's error.
    mutating func fail(_ error: TransportError) {
        status = .error
        failure = URLError(error, url: nil)
    }
}

/// One half's `CapturedStreamMachine` in its lock.
final class CapturedStreamState: Sendable {
    private let machine = LockedBox(CapturedStreamMachine())

    /// Applies one input (or reads the state) under the lock: the one door to the machine.
    func input<Result>(_ body: (inout CapturedStreamMachine) -> Result) -> Result {
        machine.withLock { body(&$0) }
    }
}
