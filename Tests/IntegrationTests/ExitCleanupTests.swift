import Foundation
import Testing
import TestSupport

// A process on FWNetworking exits cleanly while other threads are still inside OpenSSL: CFWOpenSSL initialises
// OpenSSL without its exit-time cleanup, which freed the locks of threads still at work (fwcurl crashed with
// SIGSEGV after printing its exit-60 error, once in a suite run). Each run is a PathProbe process of its own
// (`ExitRace`); with the cleanup registered, 5 runs of 20 crashed here.
@Suite struct ExitCleanupTests {
    @Test func aProcessExitsCleanlyWhileOtherThreadsAreInsideOpenSSL() throws {
        for run in 1...20 {
            let probe = try PathProbeRun(["exit-race", TLSFixtures.path("valid-ecdsa.pem")], timeout: 30)
            #expect(probe.fields["underway"] == "true", "run \(run)")
            #expect(probe.termination.reason == .exit, "run \(run): ended by signal \(probe.termination.status)")
            #expect(probe.termination.status == 0, "run \(run)")
        }
    }
}
