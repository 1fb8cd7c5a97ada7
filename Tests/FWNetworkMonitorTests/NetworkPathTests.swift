// NetworkPath, NetworkInterface and NetworkDestination: descriptions and numeric destinations.

import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct NetworkPathTests {
    @Test func descriptions() {
        let interface = NetworkInterface(index: 3, name: "wwan0", kind: .wwan)
        #expect(interface.description == "wwan0 (3, wwan)")
        #expect(NetworkPath(interface: interface).description == "reachable over wwan0 (3, wwan)")
        #expect(NetworkPath.unreachable.description == "unreachable")
        #expect(!NetworkPath.unreachable.isReachable)
        #expect(NetworkInterface.Kind.other.description == "other")
        #expect(NetworkDestination.defaultRoute.description == "default route")
        #expect(NetworkDestination.host("example.org").description == "host example.org")
    }

    @Test(arguments: [
        ("10.0.0.1", "10.0.0.1"),
        ("::1", "::1"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("example.org", nil),
        ("10.0.0.1.example", nil),
    ] as [(String, String?)])
    func numericHosts(host: String, address: String?) {
        #expect(NetworkDestination.host(host).numericAddress == address.map(ip))
    }

    @Test func theDefaultRouteHasNoAddress() {
        #expect(NetworkDestination.defaultRoute.numericAddress == nil)
    }
}
