// Syscall+Files: whole and limited reads of small files, symbolic links, errors as IOError.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

import FWLoop
@testable import FWNetworkMonitor

@Suite struct SyscallFilesTests {
    @Test(arguments: [(100, "0123456789"), (4, "0123"), (0, "")])
    func readsAFileUpToTheLimit(limit: Int, expected: String) throws {
        let path = NSTemporaryDirectory() + "/fw-read-\(UUID().uuidString)"
        try "0123456789".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Syscall.readFile(path, limit: limit) == Array(expected.utf8))
    }

    @Test func readsASysfsAttribute() throws {
        let uevent = try Syscall.readFile("/sys/class/net/lo/uevent", limit: 4096)
        #expect(String(decoding: uevent, as: UTF8.self).contains("INTERFACE=lo"))
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: IOError(errno: ENOENT, call: "open")) {
            try Syscall.readFile("/nonexistent/fw-file", limit: 10)
        }
    }

    @Test func readsALinkAsStored() throws {
        let path = NSTemporaryDirectory() + "/fw-link-\(UUID().uuidString)"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "../drivers/qmi_wwan")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Syscall.readLink(path) == "../drivers/qmi_wwan")
    }

    @Test func aFileIsNoLink() throws {
        let path = NSTemporaryDirectory() + "/fw-file-\(UUID().uuidString)"
        try "x".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: IOError(errno: EINVAL, call: "readlink")) {
            try Syscall.readLink(path)
        }
    }
}
