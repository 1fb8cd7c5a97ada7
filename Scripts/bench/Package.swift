// swift-tools-version:6.0
//
// The client benchmark suite (issue 4, item 7): FWNetworking's URLSession against FoundationNetworking's
// URLSession, AsyncHTTPClient, libcurl's multi interface (curl/bench-curl.c, compiled by the script) and
// wrk, all against a loopback nginx over HTTP and HTTPS (issue 5), plus 1 GiB file transfers (issue 6). A
// separate package so that the root Package.swift stays free of dependencies. Run everything with
// `Scripts/bench.sh` (`--quick` for a smoke run, `--rows` for a subset).

import PackageDescription

let package = Package(
    name: "FWNetworkingBench",
    dependencies: [
        .package(name: "FWNetworking", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
    ],
    targets: [
        // MARK: Clients: each prints one JSON line (see BenchSupport/ClientResult.swift)

        .executableTarget(
            name: "bench-fw",
            dependencies: ["BenchSupport", .product(name: "FWNetworking", package: "FWNetworking")]
        ),
        .executableTarget(name: "bench-foundation", dependencies: ["BenchSupport"],
                          swiftSettings: [.define("FOUNDATION_NETWORKING")]),
        .executableTarget(
            name: "bench-ahc",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        // MARK: The driver: interleaved rounds, medians, ratios, the Markdown table

        .executableTarget(name: "bench-suite", dependencies: ["BenchSupport"]),

        // MARK: Shared by clients and driver, and its tests

        .target(name: "BenchSupport"),
        .testTarget(name: "BenchSupportTests", dependencies: ["BenchSupport"]),
    ]
)
