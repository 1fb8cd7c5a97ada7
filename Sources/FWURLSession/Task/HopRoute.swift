// MARK: - HopRoute: the hop and the policies' state, behind one reference
//
// The policy walks (`URLSessionTask+HopPolicies.swift`) run on the current `Hop` and the `TaskPolicyState`
// outside the task's lock: policies touch storages and the disk. A walk used to swap both out of the lock and
// back, about 720 bytes each way plus a fresh `Hop` left in their place (some 3,000 instructions of a small
// request). Now both live in this box, and a walk takes the box out (one reference) and puts it back
// (`TaskTransfer.takeRoute()` / `putBack(_:)`).
//
// The transfer reaches the hop and the policies' state in place, through addressors (`TaskTransfer.hop`,
// `.policies`): reading one field of the hop reads that field, not a copy of the whole hop, as it did when
// the hop was a stored property. The box is a `ManagedBuffer` (the policies' state its header, the hop its
// one element), so both have addresses that stay valid while it lives.
//
// While a walk holds the box, the transfer answers with the request the walk started from (`currentRequest`,
// what a reader on another thread looks at) and an empty hop otherwise; a change made through the transfer
// meanwhile goes to a box of its own and is dropped when the walk puts its box back, as it was when the walk
// swapped in a placeholder. Walks run one at a time (on the delegate queue, or in `resume()` for a hop
// nothing else runs yet), so nothing else is dropped.
//
// The box is copied on write: a `TaskTransfer` copied into another task (a hand-over) stays a value of its
// own, and a walk always holds a box nobody else sees.

/// The hop and what the policies keep across hops (`TaskTransfer.route`).
final class HopRoute: ManagedBuffer<TaskPolicyState, Hop> {
    /// A box holding `hop` and `policies`.
    static func make(hop: Hop, policies: TaskPolicyState = TaskPolicyState()) -> HopRoute {
        let route = unsafeDowncast(create(minimumCapacity: 1) { _ in policies }, to: HopRoute.self)
        route.withUnsafeMutablePointerToElements { $0.initialize(to: hop) }
        return route
    }

    /// A box holding a first hop for `request` and fresh policies' state, both made in place (made first and
    /// passed in, the hop and the state were built on the stack and copied into the box).
    static func make(request: URLRequest?) -> HopRoute {
        let route = unsafeDowncast(create(minimumCapacity: 1) { _ in TaskPolicyState() }, to: HopRoute.self)
        route.withUnsafeMutablePointerToElements { $0.initialize(to: Hop(request: request)) }
        return route
    }

    /// What a transfer shows while a walk holds its box and nothing was changed meanwhile: an empty hop.
    /// Never changed (changes go to a box of the transfer's own: `TaskTransfer.writableRoute()`), so shared
    /// by every transfer.
    nonisolated(unsafe) static let empty = make(hop: Hop(request: nil))

    deinit {
        _ = withUnsafeMutablePointerToElements { $0.deinitialize(count: 1) }
    }

    /// The hop, in place for as long as the box lives.
    var hop: UnsafeMutablePointer<Hop> {
        withUnsafeMutablePointerToElements { $0 }
    }

    /// The policies' state, in place for as long as the box lives.
    var policies: UnsafeMutablePointer<TaskPolicyState> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// A box of its own with the same contents.
    func copy() -> HopRoute {
        .make(hop: hop.pointee, policies: policies.pointee)
    }
}

extension TaskTransfer {
    /// The hop being sent now, read and changed in place.
    var hop: Hop {
        unsafeAddress { UnsafePointer((route ?? idleRoute ?? HopRoute.empty).hop) }
        unsafeMutableAddress { writableRoute().hop }
    }

    /// What the policies keep across hops, in the same box.
    var policies: TaskPolicyState {
        unsafeAddress { UnsafePointer((route ?? idleRoute ?? HopRoute.empty).policies) }
        unsafeMutableAddress { writableRoute().policies }
    }

    /// The current hop's request (`URLSessionTask.currentRequest`), also while a walk holds the box.
    var currentRequest: URLRequest? {
        get { route == nil ? walkedRequest : hop.request }
        set { hop.request = newValue }
    }

    /// Takes the box out for a walk, leaving its request readable; nil while another walk holds it.
    mutating func takeRoute() -> HopRoute? {
        guard route != nil else { return nil }
        let route = writableRoute()
        walkedRequest = route.hop.pointee.request
        self.route = nil
        return route
    }

    /// Puts back the box `takeRoute()` took out, with what the walk changed; what was changed through the
    /// transfer meanwhile is dropped.
    mutating func putBack(_ route: HopRoute) {
        self.route = route
        walkedRequest = nil
        idleRoute = nil
    }

    /// The box to change: the transfer's own (copied first when another transfer shares it), or while a walk
    /// holds it, one whose changes are dropped when the walk puts it back.
    private mutating func writableRoute() -> HopRoute {
        if route != nil {
            if !isKnownUniquelyReferenced(&route) { route = route?.copy() }
        } else if idleRoute == nil {
            idleRoute = .make(request: walkedRequest)
        }
        return (route ?? idleRoute)!
    }
}
