import Foundation
import FWNetworking
import Testing
import TestSupport

// MARK: - The fault table: fault × phase

extension FaultSuite {
    /// Where in the attempt the fault strikes.
    enum Phase: String, Sendable {
        case queue, connect, tls, requestHead, requestBody, responseHead, responseBody, idleReuse
    }

    /// The server behind the proxy.
    enum Upstream: Sendable {
        /// nginx over plain HTTP (`/small`, `/files/body.bin`, PUT to `/upload/`).
        case nginx
        /// `openssl s_server -www` over TLS (GET `/`).
        case openssl
    }

    /// How the fault is set up.
    enum Setup: Sendable, CustomStringConvertible {
        /// The FaultProxy, with this fault, in front of the upstream.
        case proxy(FaultProxy.Fault)
        /// A port whose connects never complete (`UnacceptedListener`).
        case unresponsivePort
        /// A port nothing listens on.
        case refusedPort

        var description: String {
            switch self {
            case .proxy(let fault): "\(fault)"
            case .unresponsivePort: "connect never completes"
            case .refusedPort: "connection refused"
            }
        }
    }

    /// The request the row measures.
    enum Load: Sendable {
        /// GET of a small body (nginx `/small`, or s_server's status page).
        case small
        /// GET of the 256 KiB file.
        case file
        /// PUT of this many bytes to nginx's `/upload/`.
        case upload(Int)
        /// POST of a small body to `/small`.
        case post
    }

    /// One row: a fault in one phase, the request that runs into it, and what must come of it.
    struct Row: Sendable, CustomTestStringConvertible {
        let phase: Phase
        let setup: Setup
        var upstream = Upstream.nginx
        var load = Load.small
        /// The URLError the request ends with; nil: it succeeds.
        let expected: URLError.Code?

        var timesOut: Bool { expected == .timedOut }
        /// The request's timeout (the restrictive one): short where the fault is a stall.
        var timeout: Double { timesOut ? FaultSuite.stallTimeout : FaultSuite.workingTimeout }
        /// The longest the request may take: a liveness bound, not a timing one — generous enough for a
        /// loaded 2-core machine (a run took 7.6 s for its 1 s timeout there; at a load of 20 an idle-reuse
        /// row via async missed timeout + 12 + 5 s), below the 60 s a timeout that never fires would take.
        var bound: Double { timeout + 30 }
        var testDescription: String { "\(phase.rawValue): \(setup)" }
    }

    static let fileSize = 256 * 1024

    static let rows: [Row] = [
        Row(phase: .queue, setup: .proxy(.throttle(.downstream, bytesPerSecond: 20)), expected: .timedOut),
        Row(phase: .connect, setup: .unresponsivePort, expected: .timedOut),
        Row(phase: .connect, setup: .refusedPort, expected: .cannotConnectToHost),
        Row(phase: .tls, setup: .proxy(.acceptAndHold), upstream: .openssl, expected: .timedOut),
        Row(phase: .tls, setup: .proxy(.hold(.downstream)), upstream: .openssl, expected: .timedOut),
        Row(phase: .tls, setup: .proxy(.throttle(.downstream, bytesPerSecond: 300)), upstream: .openssl,
            expected: .timedOut),
        Row(phase: .tls, setup: .proxy(.truncate(.downstream, atByte: 100)), upstream: .openssl,
            expected: .secureConnectionFailed),
        Row(phase: .tls, setup: .proxy(.reset(.downstream, atByte: 100)), upstream: .openssl,
            expected: .secureConnectionFailed),
        Row(phase: .requestHead, setup: .proxy(.blackhole(.upstream)), expected: .timedOut),
        Row(phase: .requestHead, setup: .proxy(.reset(.upstream, atByte: 20)), expected: .networkConnectionLost),
        Row(phase: .requestBody, setup: .proxy(.reset(.upstream, atByte: 100_000)), load: .upload(512 * 1024),
            expected: .networkConnectionLost),
        Row(phase: .requestBody, setup: .proxy(.hold(.upstream, atByte: 100_000)), load: .upload(16 << 20),
            expected: .timedOut),
        Row(phase: .responseHead, setup: .proxy(.delay(.downstream, seconds: 4)), expected: .timedOut),
        Row(phase: .responseHead, setup: .proxy(.truncate(.downstream, atByte: 10)), expected: .networkConnectionLost),
        Row(phase: .responseHead, setup: .proxy(.reset(.downstream, atByte: 10)), expected: .networkConnectionLost),
        Row(phase: .responseBody, setup: .proxy(.truncate(.downstream, atByte: 100_000)), load: .file,
            expected: .networkConnectionLost),
        Row(phase: .responseBody, setup: .proxy(.reset(.downstream, atByte: 100_000)), load: .file,
            expected: .networkConnectionLost),
        Row(phase: .responseBody, setup: .proxy(.blackhole(.downstream, atByte: 100_000)), load: .file,
            expected: .timedOut),
        Row(phase: .responseBody, setup: .proxy(.throttle(.downstream, bytesPerSecond: 1 << 20)), load: .file,
            expected: nil),
        Row(phase: .idleReuse, setup: .proxy(.closeWhenIdle(after: 0.2)), load: .post, expected: nil),
        Row(phase: .idleReuse, setup: .proxy(.closeWhenIdle(after: 0.2, reset: true)), load: .post, expected: nil),
    ]
}
