// URLCache+SharedTests.swift
//
// Where caches live: the XDG cache root per process, how a disk path or directory is resolved, the shared
// cache's defaults and setter (without changing the process-wide value other tests may read), and the
// memory-only cache of ephemeral configurations.

import Foundation
import Testing
import TestSupport
@testable import FWURLSession

@Suite struct URLCacheSharedTests {
    struct RootCase: Sendable, CustomTestStringConvertible {
        var rule: String
        var environment: [String: String]
        var processName: String
        var root: String
        var testDescription: String { rule }
    }

    static let rootCases: [RootCase] = [
        RootCase(rule: "XDG_CACHE_HOME", environment: ["XDG_CACHE_HOME": "/var/cache/me"], processName: "tool",
                 root: "/var/cache/me/FWNetworking/tool"),
        RootCase(rule: "no XDG_CACHE_HOME", environment: [:], processName: "tool",
                 root: "/home/me/.cache/FWNetworking/tool"),
        RootCase(rule: "a relative XDG_CACHE_HOME is ignored", environment: ["XDG_CACHE_HOME": "cache"],
                 processName: "tool", root: "/home/me/.cache/FWNetworking/tool"),
        RootCase(rule: "slashes in the process name", environment: [:], processName: "a/b\\c",
                 root: "/home/me/.cache/FWNetworking/a_b_c"),
        RootCase(rule: "an empty process name", environment: [:], processName: "",
                 root: "/home/me/.cache/FWNetworking/process"),
        RootCase(rule: "a dot-dot process name", environment: [:], processName: "..",
                 root: "/home/me/.cache/FWNetworking/process"),
    ]

    @Test(arguments: rootCases)
    func theCacheRootFollowsXDG(_ testCase: RootCase) {
        let root = URLCache.cacheRoot(environment: testCase.environment, homeDirectory: "/home/me",
                                      processName: testCase.processName)
        #expect(root.path == testCase.root)
    }

    @Test func diskPathsResolveUnderTheRootUnlessAbsolute() {
        let root = URLCache.cacheRoot(environment: ProcessInfo.processInfo.environment,
                                      homeDirectory: FileManager.default.homeDirectoryForCurrentUser.path,
                                      processName: ProcessInfo.processInfo.processName)
        #expect(URLCache.directory(forDiskPath: "/tmp/mine").path == "/tmp/mine")
        #expect(URLCache.directory(forDiskPath: "images").path == root.appendingPathComponent("images").path)
        #expect(URLCache.directory(forDiskPath: nil).path == root.appendingPathComponent("URLCache").path)
    }

    @Test func publicInitialisersUseTheirDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let byPath = URLCache(memoryCapacity: 1, diskCapacity: 2, diskPath: directory.url.path + "/p")
        #expect(byPath.disk.directory?.path == directory.url.path + "/p")
        #expect(byPath.memoryCapacity == 1)
        #expect(byPath.diskCapacity == 2)
        let byURL = URLCache(memoryCapacity: 3, diskCapacity: 4, directory: directory.url)
        #expect(byURL.disk.directory == directory.url)
        let byDefault = URLCache(memoryCapacity: 0, diskCapacity: 0)
        #expect(byDefault.disk.directory?.path == URLCache.directory(forDiskPath: nil).path)
    }

    @Test func theSharedCacheHasFoundationNetworkingsCapacities() {
        let shared = URLCache.shared
        #expect(shared === URLCache.shared)
        #expect(shared.disk.directory?.path == URLCache.directory(forDiskPath: nil).path)
        #expect(URLCache.sharedMemoryCapacity == 4 * 1024 * 1024)
        #expect(URLCache.sharedDiskCapacity == 20 * 1024 * 1024)
    }

    @Test func theSharedCacheCanBeAssigned() {
        let current = URLCache.shared
        URLCache.shared = current
        #expect(URLCache.shared === current)
    }

    @Test func anEphemeralCacheLivesInMemoryOnly() {
        let cache = URLCache.makeEphemeral()
        #expect(cache.disk.directory == nil)
        #expect(cache.memoryCapacity == 4 * 1024 * 1024)
        #expect(cache.diskCapacity == 0)
        #expect(URLCache.makeEphemeral() !== cache)
    }
}
