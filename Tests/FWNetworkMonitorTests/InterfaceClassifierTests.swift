// InterfaceClassifier: WWAN from a fake sysfs class/net tree in a temporary directory — DEVTYPE=wwan in
// uevent, the cdc_mbim and qmi_wwan drivers — and everything else, missing attributes included, other.

import Foundation
import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct InterfaceClassifierTests {
    /// An interface directory of the fake tree: its uevent (if any) and its device's driver (if any).
    struct Interface: Sendable {
        var name: String
        var uevent: String?
        var driver: String?
        var kind: NetworkInterface.Kind
    }

    static let interfaces: [Interface] = [
        Interface(name: "wwan0", uevent: "INTERFACE=wwan0\nIFINDEX=5\nDEVTYPE=wwan\n", driver: "option", kind: .wwan),
        Interface(name: "wwp0s20u4i6", uevent: "INTERFACE=wwp0s20u4i6\nIFINDEX=6\n", driver: "qmi_wwan", kind: .wwan),
        Interface(name: "wwan1", uevent: "INTERFACE=wwan1\n", driver: "cdc_mbim", kind: .wwan),
        Interface(name: "wlan0", uevent: "INTERFACE=wlan0\nDEVTYPE=wlan\n", driver: "iwlwifi", kind: .other),
        Interface(name: "eth0", uevent: "INTERFACE=eth0\nIFINDEX=2\n", driver: "e1000e", kind: .other),
        Interface(name: "usb0", uevent: "INTERFACE=usb0\nDEVTYPE=wwanish\n", driver: "cdc_ether", kind: .other),
        Interface(name: "dummy0", uevent: "INTERFACE=dummy0\n", driver: nil, kind: .other),
        Interface(name: "bare0", uevent: nil, driver: nil, kind: .other),
    ]

    /// Builds the tree under a new temporary directory and returns its root.
    static func makeTree() throws -> String {
        let root = NSTemporaryDirectory() + "/fw-sysfs-\(UUID().uuidString)"
        let files = FileManager.default
        for interface in interfaces {
            let directory = root + "/" + interface.name
            try files.createDirectory(atPath: directory + "/device", withIntermediateDirectories: true)
            if let uevent = interface.uevent {
                try uevent.write(toFile: directory + "/uevent", atomically: true, encoding: .utf8)
            }
            if let driver = interface.driver {
                let target = "../../../bus/usb/drivers/\(driver)"
                try files.createSymbolicLink(atPath: directory + "/device/driver", withDestinationPath: target)
            }
        }
        return root
    }

    @Test func classifiesEveryInterfaceOfTheTree() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let classifier = InterfaceClassifier(root: root)
        for interface in Self.interfaces {
            #expect(classifier.kind(of: interface.name) == interface.kind, "\(interface.name)")
        }
    }

    @Test(arguments: ["missing0", "", ".", "..", "wwan0/../wwan0", "../wwan0"])
    func namesThatAreNoInterfaceAreOther(_ name: String) throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(InterfaceClassifier(root: root).kind(of: name) == .other)
    }

    @Test func theRealLoopbackInterfaceIsOther() {
        #expect(InterfaceClassifier(root: "/sys/class/net").kind(of: "lo") == .other)
    }
}
