// ProcessResources: what this process holds, read from /proc — for leak checks and the soak log.

import Foundation

// MARK: - ProcessResources

/// Descriptors, sockets and memory of the current process, from /proc (Linux).
public enum ProcessResources {
    /// How many descriptors the process has open (entries of /proc/self/fd).
    public static var descriptorCount: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    /// The resident set size in bytes (VmRSS of /proc/self/status).
    public static var residentBytes: Int {
        guard let status = procFile("/proc/self/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return kilobytes * 1024
    }

    /// Returns the allocator's free memory to the system (glibc's `malloc_trim(0)`, which Swift's Glibc
    /// module does not declare), so that the resident size counts what is still allocated.
    public static func releaseFreeMemory() {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    /// How many of this process's descriptors are TCP sockets whose local or remote port is in `ports`:
    /// tests running in parallel do not disturb the count, unlike the total.
    public static func socketCount(touching ports: Set<Int>) -> Int {
        let inodes = tcpSocketInodes(touching: ports)
        guard !inodes.isEmpty else { return 0 }
        let directory = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.count { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + entry),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { return false }
            return inodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }
    }

    /// The inodes of the TCP sockets (IPv4 and IPv6, any state) with a local or remote port in `ports`.
    private static func tcpSocketInodes(touching ports: Set<Int>) -> Set<String> {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procFile(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                let columns = line.split(separator: " ")
                guard columns.count > 9 else { continue }
                let endpoints = [columns[1], columns[2]].compactMap { $0.split(separator: ":").last }
                if endpoints.contains(where: { Int($0, radix: 16).map(ports.contains) ?? false }) {
                    inodes.insert(String(columns[9]))
                }
            }
        }
        inodes.remove("0")
        return inodes
    }

    /// The whole text of a /proc file (`String(contentsOfFile:)` stops after its first page: /proc files
    /// report a size of 0).
    private static func procFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }
}
