// ExitRace: the process exits while other threads are still inside OpenSSL, as a program ends while a
// connection's last certificates are released on a delegate queue or a loop. Two threads decode a certificate
// and free it, over and over; once both are under way the probe reports and exits. Had OpenSSL's exit-time
// cleanup been registered, it would free the locks those threads take (CFWOpenSSL's openssl_shims.c): a crash
// in about one run in four here.

import Foundation
import FWTLS
import TestSupport

enum ExitRace {
    /// Exits (through `report`) while two threads decode and free the first certificate of the PEM file at `path`.
    static func run(certificatePEM path: String) -> Never {
        guard let der = (try? Certificate.certificates(pemFile: path))?.first?.derBytes else { usage() }
        let rounds = LockedBox([0, 0])
        for worker in 0..<2 {
            Thread.detachNewThread {
                while true {
                    guard (try? Certificate(derBytes: der)) != nil else { continue }
                    rounds.withLock { $0[worker] += 1 }
                }
            }
        }
        let underWay = waitUntil(timeout: 10) { rounds.withLock { $0.allSatisfy { $0 > 0 } } }
        report([("underway", "\(underWay)")])
    }
}
