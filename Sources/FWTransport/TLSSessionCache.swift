import FWLoop
import FWTLS

// TLSSessionCache: the transport's TLS session store. FWTLS keeps no lock of its own; the transport
// shares one TLSContext across its loops, so the sessions its engines resume from live here, behind a
// LockedBox: the newest resumable session per (host, port), at most `capacity` of them, the least
// recently stored going first when a new key arrives at a full cache.

// MARK: - TLSSessionCache

/// The newest resumable session per (host, port), at most `capacity` of them (the least recently stored
/// goes first); a capacity of 0 keeps none.
///
/// Generic over the session so that its rules are testable without handshakes; the transport's
/// contexts use `TLSSessionCache<TLSSession>`, FWTLS's `TLSSessionStore`.
final class TLSSessionCache<Session: AnyObject & Sendable>: Sendable {
    private struct Entries {
        var sessions: [TLSSessionKey: (session: Session, stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let entries = LockedBox(Entries())

    /// A cache of at most `capacity` sessions (256 by default: one per server a session talks to).
    init(capacity: Int = 256) {
        self.capacity = max(capacity, 0)
    }

    /// The session kept for `key`, if any.
    func session(for key: TLSSessionKey) -> Session? {
        entries.withLock { $0.sessions[key]?.session }
    }

    /// Keeps `session` for `key`, replacing the one kept before; evicts the least recently stored key
    /// when a new key finds the cache full.
    func store(_ session: Session, for key: TLSSessionKey) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            entries.clock += 1
            if entries.sessions[key] == nil, entries.sessions.count >= capacity,
                let oldest = entries.sessions.min(by: { $0.value.stamp < $1.value.stamp })?.key
            {
                entries.sessions[oldest] = nil
            }
            entries.sessions[key] = (session, entries.clock)
        }
    }

    /// Forgets the session kept for `key`.
    func removeSession(for key: TLSSessionKey) {
        _ = entries.withLock { $0.sessions.removeValue(forKey: key) }
    }
}

// MARK: - TLSSessionStore

extension TLSSessionCache: TLSSessionStore where Session == TLSSession {}
