// swift-tools-version:6.0
//
// libFuzzer targets for FWWire (STYLE.md principle 15: "accepted or a protocol error, nothing else").
// A separate package so that the root Package.swift stays free of dependencies and fuzzing flags.
// Build and run through Scripts/fuzz.sh, which adds `-sanitize=fuzzer,address`; a plain `swift build`
// here gives the same executables as replay tools (they run the files named on the command line).

import PackageDescription

let package = Package(
    name: "FWNetworkingFuzz",
    products: [
        .executable(name: "response-parser", targets: ["response-parser"]),
        .executable(name: "chunked-decoder", targets: ["chunked-decoder"]),
        .executable(name: "websocket-decoder", targets: ["websocket-decoder"]),
    ],
    dependencies: [
        .package(name: "FWNetworking", path: "../.."),
    ],
    targets: [
        // MARK: Fuzz targets

        .executableTarget(name: "response-parser", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "chunked-decoder", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "websocket-decoder", dependencies: ["FuzzSupport"]),

        // MARK: Shared harness

        .systemLibrary(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CLibFuzzer", .product(name: "FWWire", package: "FWNetworking")]
        ),
        .testTarget(name: "FuzzSupportTests", dependencies: ["FuzzSupport"]),
    ]
)
