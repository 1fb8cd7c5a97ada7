// StoreTestSupport.swift
//
// Helpers for the cookie and credential storage tests (the temporary directory is TestSupport's): a log
// that records lines instead of writing them to stderr, a clock moved by hand, and a recorder of the
// notifications a storage posts.

import Foundation
@testable import FWURLSession
import TestSupport

// MARK: - LogRecorder

/// Records the lines a store logs.
final class LogRecorder: Sendable {
    private let box = LockedBox<[String]>([])

    /// The function to give a store as its log.
    var log: @Sendable (String) -> Void {
        { [box] line in box.withLock { $0.append(line) } }
    }

    /// The lines logged so far.
    var lines: [String] { box.withLock { $0 } }
}

// MARK: - TestClock

/// A clock that only moves when told to.
final class TestClock: Sendable {
    private let box: LockedBox<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        box = LockedBox(start)
    }

    /// The current time.
    var now: Date { box.withLock { $0 } }

    /// The function to give a store as its clock.
    var clock: @Sendable () -> Date {
        { [box] in box.withLock { $0 } }
    }

    /// Moves the clock forward by `seconds`.
    func advance(by seconds: TimeInterval) {
        box.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

// MARK: - NotificationRecorder

/// Counts the notifications named `name` posted by `object`, from the moment it is created until released.
final class NotificationRecorder: Sendable {
    private let count = LockedBox(0)
    private let observer: LockedBox<(any NSObjectProtocol)?>

    init(_ name: Notification.Name, object: AnyObject) {
        observer = LockedBox(nil)
        let count = self.count
        let token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { _ in
            count.withLock { $0 += 1 }
        }
        observer.withLock { $0 = token }
    }

    deinit {
        if let token = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(token) }
    }

    /// How many notifications arrived.
    var received: Int { count.withLock { $0 } }
}
