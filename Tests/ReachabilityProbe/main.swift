// ReachabilityProbe: run by IntegrationTests inside a network namespace the test made (`unshare --net
// --mount`), while the test changes that namespace's interfaces, addresses and routes from outside
// (`nsenter`). It reports what it observes on standard output, one line per event, flushed at once:
//
//   ReachabilityProbe reachability HOST
//       Listens with NetworkReachabilityManager() and NetworkReachabilityManager(host: HOST) on the main
//       queue and prints "default STATUS" and "host STATUS" for every status their listeners hear
//       (STATUS: unknown, notReachable, reachable(ethernetOrWiFi), reachable(cellular)). Runs until killed.
//   ReachabilityProbe waits
//       With no route to 127.0.0.1 (the namespace's loopback interface is down), fetches from a loopback
//       server: without waitsForConnectivity ("nowait RESULT"), by a name no name server can be asked
//       about without a network ("nowait-name RESULT"), with waitsForConnectivity and a 1 s resource
//       timeout ("timeout RESULT"), and with it and a long timeout ("waiting" when the delegate hears
//       taskIsWaitingForConnectivity, then "waited RESULT" once the test brought the loopback interface
//       up). RESULT: "status=CODE body=TEXT" or "error=CODE", then "messages=N" (how often the delegate
//       heard taskIsWaitingForConnectivity). Then "requests=N", the requests the server received. Exits.

import Dispatch
import FWNetworking
import Foundation

/// Writes one line to standard output at once, unbuffered (the test reads the output while the probe runs).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `notReachable`, `reachable(cellular)`, ...
func describe(_ status: NetworkReachabilityManager.NetworkReachabilityStatus) -> String {
    switch status {
    case .unknown:
        return "unknown"
    case .notReachable:
        return "notReachable"
    case .reachable(.ethernetOrWiFi):
        return "reachable(ethernetOrWiFi)"
    case .reachable(.cellular):
        return "reachable(cellular)"
    }
}

/// Listens on the default destination and on `host`; never returns.
func listenForReachability(host: String) -> Never {
    guard let any = NetworkReachabilityManager(), let one = NetworkReachabilityManager(host: host) else {
        emit("no network monitor")
        exit(1)
    }
    any.startListening { emit("default \(describe($0))") }
    one.startListening { emit("host \(describe($0))") }
    withExtendedLifetime((any, one)) {
        dispatchMain()
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 2, arguments[0] == "reachability" {
    listenForReachability(host: arguments[1])
} else if arguments == ["waits"] {
    runWaitScenarios()
    exit(0)
} else {
    emit("usage: ReachabilityProbe reachability HOST | waits")
    exit(2)
}
