// URLCache+Shared.swift
//
// The shared cache and where caches live on disk. Following the XDG Base Directory specification, the cache
// root of a process is `$XDG_CACHE_HOME/FWNetworking/<process name>` when XDG_CACHE_HOME is an absolute
// path, else `~/.cache/FWNetworking/<process name>` (the process name with `/` and `\` replaced by `_`).
// One directory per program keeps programs from evicting, or reading, each other's (possibly private)
// responses. `shared` is created on first use with FoundationNetworking's capacities (4 MiB in memory,
// 20 MiB on disk) in `<root>/URLCache`; it can be replaced. (`shared` itself is declared in the class body,
// so that subclasses can override it.)

import Foundation
import FWTransport

extension URLCache {
    // MARK: Shared

    /// The cache assigned to `shared`, if any.
    private static let assignedShared = LockedBox<URLCache?>(nil)

    /// The default shared cache, created (and its directory scanned) on first use; Swift runs the
    /// initialiser of a static property once, whatever the threads.
    private static let defaultShared = URLCache(memoryCapacity: sharedMemoryCapacity,
                                                diskCapacity: sharedDiskCapacity, diskPath: nil)

    /// The memory capacity of the default shared cache: 4 MiB.
    static let sharedMemoryCapacity = 4 * 1024 * 1024
    /// The disk capacity of the default shared cache: 20 MiB.
    static let sharedDiskCapacity = 20 * 1024 * 1024

    /// The cache `shared` returns: the assigned one, else the default one.
    static var sharedCache: URLCache {
        get { withAssignedShared { $0 } ?? defaultShared }
        set { withAssignedShared { $0 = newValue } }
    }

    /// The door to the assigned cache: `body` reads or replaces it under its lock.
    private static func withAssignedShared<Result>(_ body: (inout URLCache?) -> Result) -> Result {
        assignedShared.withLock(body)
    }

    /// A new cache for an ephemeral session configuration: FoundationNetworking's 4 MiB in memory, and no
    /// disk tier at all (raising its disk capacity stores nothing on disk either).
    static func makeEphemeral() -> URLCache {
        URLCache(memoryCapacity: sharedMemoryCapacity, diskCapacity: 0, diskDirectory: nil, clock: .system)
    }

    // MARK: Directories

    /// The directory of a cache made with `diskPath`: absolute as it is, relative under the cache root,
    /// nil for `URLCache` under the cache root.
    static func directory(forDiskPath path: String?) -> URL {
        if let path, path.hasPrefix("/") {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let root = cacheRoot(environment: ProcessEnvironment.values(of: ["XDG_CACHE_HOME"]),
                             homeDirectory: FileManager.default.homeDirectoryForCurrentUser.path,
                             processName: ProcessInfo.processInfo.processName)
        return root.appendingPathComponent(path ?? "URLCache", isDirectory: true)
    }

    /// The cache root of a process: `$XDG_CACHE_HOME` (when absolute) or `<home>/.cache`, then
    /// `FWNetworking/<process name>`.
    static func cacheRoot(environment: [String: String], homeDirectory: String, processName: String) -> URL {
        let xdg = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let base = URL(fileURLWithPath: xdg ?? homeDirectory + "/.cache", isDirectory: true)
        var name = processName.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\\", with: "_")
        if name.isEmpty || name == "." || name == ".." {
            name = "process"
        }
        return base.appendingPathComponent("FWNetworking", isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
    }
}
