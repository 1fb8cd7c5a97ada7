// MARK: - TaskKey

/// A task identifier as the key of the session's tables (`SessionRegistry.tasks`, `DeadlineQueue`'s live
/// deadlines), hashed with a multiply instead of SipHash: identifiers are numbers the session counts up
/// (or a re-attached background task's own), never values a peer chooses, and a request looks its task up
/// about four times. A table's bucket is the hash's low bits, which a multiply by an odd constant maps one
/// to one, so the identifiers alive at once never share one (FWTransport's ids hash the same way).
struct TaskKey: Hashable, Sendable {
    let identifier: Int

    init(_ identifier: Int) { self.identifier = identifier }

    func _rawHashValue(seed: Int) -> Int {
        (identifier ^ seed) &* -0x61C8_8646_80B5_83EB // 0x9E37_79B9_7F4A_7C15 as a signed number
    }
}
