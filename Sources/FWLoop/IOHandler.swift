// The vocabulary of EventLoop registrations: interest, events, the handler and the ids.

import CFWShims

// MARK: - Interest and events

/// The readiness a registration asks to be told about.
public struct IOInterest: OptionSet, Sendable {
    /// The raw epoll bits.
    public let rawValue: UInt32

    /// Creates an interest from raw epoll bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Data (or end of stream) can be read.
    public static let readable = IOInterest(rawValue: FW_EPOLLIN)
    /// Bytes can be written, or a non-blocking connect finished.
    public static let writable = IOInterest(rawValue: FW_EPOLLOUT)
}

/// The readiness the loop reports to a handler.
///
/// `hangup` and `error` are reported whatever the interest (the kernel always reports them), and
/// keep being reported while they last: the handler must act on them (read to the end or close).
public struct IOEvents: OptionSet, Sendable {
    /// The raw epoll bits.
    public let rawValue: UInt32

    /// Creates events from raw epoll bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Data (or end of stream) can be read.
    public static let readable = IOEvents(rawValue: FW_EPOLLIN)
    /// Bytes can be written, or a non-blocking connect finished.
    public static let writable = IOEvents(rawValue: FW_EPOLLOUT)
    /// Both directions of the connection are closed (`EPOLLHUP`).
    public static let hangup = IOEvents(rawValue: FW_EPOLLHUP)
    /// The socket has a pending error (`EPOLLERR`); a read, write or `finishConnect` reports it.
    public static let error = IOEvents(rawValue: FW_EPOLLERR)
}

// MARK: - Handler

/// Gets told about readiness of its registered fd, on the loop thread.
///
/// The loop holds the handler strongly from `register` until `deregister` (or loop shutdown).
public protocol IOHandler: AnyObject {
    /// Called on the loop thread with the readiness of the registered descriptor.
    func handleIO(_ events: IOEvents)
}

// MARK: - Ids

/// Names one registration on one loop; not reused until its slot has been refilled 2^32 - 2 times.
///
/// The id is what epoll hands back, so an event for a descriptor that was deregistered, closed and
/// reused by a new registration finds no registration and is dropped (SlotTable.swift).
public struct RegistrationID: Hashable, Sendable {
    let rawValue: UInt64
}

/// Names one scheduled timer on one loop; not reused until its slot has been refilled 2^32 - 2 times
/// (SlotTable.swift).
public struct TimerID: Hashable, Sendable {
    let rawValue: UInt64
}
