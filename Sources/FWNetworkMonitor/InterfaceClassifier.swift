// InterfaceClassifier: tells a cellular modem (WWAN) interface from any other by its sysfs attributes.
//
// The mapping (NetworkReachabilityManager reports `.cellular` for `.wwan`, `.ethernetOrWiFi` otherwise):
//   1. `<root>/<name>/uevent` has the line `DEVTYPE=wwan` (set by the kernel's WWAN drivers and by
//      ModemManager-era USB drivers that register a wwan device type), or
//   2. the driver of `<root>/<name>/device` (the last component of the `device/driver` link) is `cdc_mbim`
//      or `qmi_wwan`, the USB modem drivers that do not set a device type.
// Anything else, missing attributes included, is `.other`. The root is `/sys/class/net`; tests point it at
// a fake tree.

import FWLoop

/// Classifies network interfaces from a sysfs `class/net` directory.
struct InterfaceClassifier: Sendable {
    /// The drivers of USB modems whose interfaces are WWAN even without a `DEVTYPE`.
    static let wwanDrivers: Set<String> = ["cdc_mbim", "qmi_wwan"]
    /// The most of a `uevent` file read.
    private static let ueventLimit = 4096

    /// The directory holding one entry per interface, normally `/sys/class/net`.
    let root: String

    /// Classifies the interface called `name`.
    func kind(of name: String) -> NetworkInterface.Kind {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            return .other
        }
        let directory = root + "/" + name
        if let uevent = try? Syscall.readFile(directory + "/uevent", limit: Self.ueventLimit),
           String(decoding: uevent, as: UTF8.self).split(separator: "\n").contains("DEVTYPE=wwan") {
            return .wwan
        }
        if let driver = try? Syscall.readLink(directory + "/device/driver"),
           let last = driver.split(separator: "/").last, Self.wwanDrivers.contains(String(last)) {
            return .wwan
        }
        return .other
    }

    /// A fresh netlink dump of the interfaces and addresses, classified by `kind(of:)`. The monitor's start and
    /// its resynchronisation both come here, so the optimiser makes one copy of `dumpView` for this closure
    /// (two call sites with the closure inline gave two 10 KB specialisations in the static fwget).
    @inline(never)
    func dumpView() throws(IOError) -> NetworkView {
        try NetlinkSocket.dumpView(classify: kind(of:))
    }
}
