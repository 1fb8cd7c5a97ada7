// ObjectAssociations: a value kept for an object for as long as the object lives, without the object's
// cooperation — what FWFramework keeps as Objective-C associated objects (a task's user info, a response's
// request totals). Entries hold their object weakly; an entry whose object is gone is never returned (the
// identifier may be reused) and is dropped on the next write.

import FWLoop

// MARK: - ObjectAssociations

/// Values kept per object while the object lives. Sendable: its one stored property is a `LockedBox`.
final class ObjectAssociations<Value>: Sendable {
    private struct Entry {
        weak var object: AnyObject?
        var value: Value
    }

    private let entries = LockedBox<[ObjectIdentifier: Entry]>([:])

    /// The value kept for `object`, if any.
    func value(for object: AnyObject) -> Value? {
        entries.withLock { entries in
            guard let entry = entries[ObjectIdentifier(object)], entry.object === object else { return nil }
            return entry.value
        }
    }

    /// Keeps `value` for `object` (nil forgets it).
    func set(_ value: Value?, for object: AnyObject) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.object != nil }
            entries[ObjectIdentifier(object)] = value.map { Entry(object: object, value: $0) }
        }
    }
}

// MARK: - The shared stores

/// The user info of tasks (`URLSessionManager.setUserInfo(_:for:)`). One store per kind of value: a
/// generic class cannot hold a static stored property.
enum TaskUserInfo {
    static let shared = ObjectAssociations<[AnyHashable: Any]>()
}

/// The request totals of responses (`URLSessionManager.setRequestTotalCount(_:for:)` and the time).
enum ResponseTotals {
    static let count = ObjectAssociations<Int>()
    static let time = ObjectAssociations<Double>()
}
