// swift-tools-version:6.0
//
// bench-parser: FWWire's HTTPResponseParser against swift-nio's HTTPResponseDecoder (llhttp), on the same
// bytes in the same read sizes. A separate package so that the root Package.swift stays dependency-free.
// Run everything with `Scripts/bench-parser/run.sh`.

import PackageDescription

let package = Package(
    name: "bench-parser",
    dependencies: [
        .package(name: "FWNetworking", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .target(name: "CMallocCounter"),
        .executableTarget(
            name: "bench-parser",
            dependencies: [
                "CMallocCounter",
                .product(name: "FWWire", package: "FWNetworking"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
