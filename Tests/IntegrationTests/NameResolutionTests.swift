// A host name no name server can answer for (`EAI_AGAIN`), in network namespaces the test creates (as
// NetworkNamespaceTests does): fwcurl exits 6, as curl does, whatever the URLError; the URLError is
// `notConnectedToInternet` (-1009) only when the network monitor knows no interface but loopback that is up,
// and `cannotFindHost` (-1003) once one is, with a default route or without. The namespace's
// `/etc/resolv.conf` is a bind mount naming 127.0.0.1 (nothing listens on its port 53) with a 1 s timeout.

import Foundation
import Testing
import TestSupport

@Suite(.enabled(if: NamespacedProbe.isSupported,
                "needs root, network and mount namespaces (unshare --net --mount), iproute2 and a dummy or ifb link"))
struct NameResolutionTests {
    /// A name in no hosts file, in a reserved top-level domain.
    static let url = "http://fwnetworking-no-answer.test/"

    /// The namespace's network before the lookup.
    enum Network: String, CaseIterable, Sendable {
        /// Nothing up, not even loopback: no route anywhere.
        case none
        /// Loopback, and a dummy interface with 192.0.2.2/24 (TEST-NET-1): a route to its subnet only.
        case interfaceUp = "interface up"
        /// The same with a default route through the dummy interface.
        case defaultRoute = "interface up with a default route"

        var commands: [String] {
            let interface = ["ip link set lo up", NamespacedProbe.addLink("fw0"), "ip addr add 192.0.2.2/24 dev fw0",
                             "ip link set fw0 up"]
            switch self {
            case .none: return []
            case .interfaceUp: return interface
            case .defaultRoute: return interface + ["ip route add default via 192.0.2.1"]
            }
        }

        var expectedError: URLError.Code {
            self == .none ? .notConnectedToInternet : .cannotFindHost
        }
    }

    /// Runs `command` under `unshare --net --mount` after `network`'s commands and the resolv.conf mount;
    /// the output of `command` and its exit status (the last line).
    static func run(_ command: String, in network: Network) throws -> (output: String, status: Int32?) {
        let directory = try TemporaryDirectory()
        let resolv = directory.file("resolv.conf")
        try "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".write(toFile: resolv, atomically: true,
                                                                         encoding: .utf8)
        let script = (network.commands + ["mount --bind \(resolv) /etc/resolv.conf", command + "; echo \"status=$?\""])
            .joined(separator: " && ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["unshare", "--net", "--mount", "sh", "-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        if !waitUntil(timeout: 60, { !process.isRunning }) { process.terminate() }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let status = text.split(separator: "\n").last { $0.hasPrefix("status=") }.flatMap { Int32($0.dropFirst(7)) }
        return (text, status)
    }

    static func sibling(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }

    @Test(arguments: Network.allCases)
    func fwcurlExitsSixWithoutANameServer(_ network: Network) throws {
        let run = try Self.run("\(Self.sibling("fwcurl")) -s -o /dev/null \(Self.url)", in: network)
        #expect(run.status == 6, "\(run.output)")
    }

    @Test(arguments: Network.allCases)
    func theURLErrorSaysWhetherAnyNetworkIsThere(_ network: Network) throws {
        let run = try Self.run("\(Self.sibling("PathProbe")) path completion-handler \(Self.url) 10", in: network)
        #expect(run.output.contains("result error=\(network.expectedError.rawValue) "), "\(run.output)")
    }
}
