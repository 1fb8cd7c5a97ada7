// The faults a FaultProxy injects into the connections it relays.

// MARK: - FaultProxy.Fault

extension FaultProxy {
    /// Which way bytes flow through the proxy.
    public enum Direction: String, Sendable {
        /// From the client to the server (the request).
        case upstream
        /// From the server to the client (the response).
        case downstream
    }

    /// What the proxy does to a connection: relay it untouched, or spoil one direction once `atByte` bytes of
    /// it went through. A fault that needs more bytes to act (truncate, reset, delay) triggers when byte
    /// `atByte + 1` arrives; `hold` acts as soon as `atByte` bytes went through.
    public struct Fault: Sendable, CustomStringConvertible {
        enum Kind: Sendable {
            case pass
            /// Nothing moves in the direction for this many seconds, then it flows again.
            case delay(Double)
            /// The direction flows at most this many bytes a second (from `atByte` on).
            case throttle(Int)
            /// Both sides are closed with FIN.
            case truncate
            /// Both sides are closed with RST.
            case reset
            /// The direction's bytes are read and dropped; the other direction carries on.
            case blackhole
            /// The direction is no longer read (the sender's buffers fill); the other one carries on.
            case hold
            /// Accepted, never relayed: no upstream connection, nothing read, until the client closes.
            case acceptAndHold
            /// Once bytes went both ways and nothing moved for this many seconds, the client's side closes
            /// (with RST when `reset`): a server closing an idle kept-alive connection.
            case closeWhenIdle(Double, reset: Bool)
        }

        let kind: Kind
        let direction: Direction
        let atByte: Int

        /// Relays both directions untouched.
        public static let none = Fault(kind: .pass, direction: .upstream, atByte: 0)
        /// Accepts the connection and never relays or answers it.
        public static let acceptAndHold = Fault(kind: .acceptAndHold, direction: .upstream, atByte: 0)

        /// Holds `direction` for `seconds` once `atByte` bytes went through, then relays it again.
        public static func delay(_ direction: Direction, seconds: Double, atByte: Int = 0) -> Fault {
            Fault(kind: .delay(seconds), direction: direction, atByte: atByte)
        }

        /// Relays `direction` at most `bytesPerSecond` (from `atByte` on).
        public static func throttle(_ direction: Direction, bytesPerSecond: Int, atByte: Int = 0) -> Fault {
            Fault(kind: .throttle(max(1, bytesPerSecond)), direction: direction, atByte: atByte)
        }

        /// Relays `atByte` bytes of `direction`, then closes both sides with FIN.
        public static func truncate(_ direction: Direction, atByte: Int) -> Fault {
            Fault(kind: .truncate, direction: direction, atByte: atByte)
        }

        /// Relays `atByte` bytes of `direction`, then closes both sides with RST.
        public static func reset(_ direction: Direction, atByte: Int) -> Fault {
            Fault(kind: .reset, direction: direction, atByte: atByte)
        }

        /// Relays `atByte` bytes of `direction`, then drops the rest of it.
        public static func blackhole(_ direction: Direction, atByte: Int = 0) -> Fault {
            Fault(kind: .blackhole, direction: direction, atByte: atByte)
        }

        /// Relays `atByte` bytes of `direction`, then stops reading it.
        public static func hold(_ direction: Direction, atByte: Int = 0) -> Fault {
            Fault(kind: .hold, direction: direction, atByte: atByte)
        }

        /// Closes the client's side once the connection was used and then idle for `seconds`.
        public static func closeWhenIdle(after seconds: Double, reset: Bool = false) -> Fault {
            Fault(kind: .closeWhenIdle(seconds, reset: reset), direction: .downstream, atByte: 0)
        }

        /// The fault as a short phrase, for test names.
        public var description: String {
            switch kind {
            case .pass: "none"
            case .delay(let seconds): "delay \(direction.rawValue) \(seconds) s at byte \(atByte)"
            case .throttle(let rate): "throttle \(direction.rawValue) to \(rate) B/s from byte \(atByte)"
            case .truncate: "truncate \(direction.rawValue) at byte \(atByte)"
            case .reset: "reset \(direction.rawValue) at byte \(atByte)"
            case .blackhole: "blackhole \(direction.rawValue) from byte \(atByte)"
            case .hold: "hold \(direction.rawValue) from byte \(atByte)"
            case .acceptAndHold: "accept and hold"
            case .closeWhenIdle(let seconds, let reset): "\(reset ? "reset" : "close") when idle \(seconds) s"
            }
        }
    }
}
