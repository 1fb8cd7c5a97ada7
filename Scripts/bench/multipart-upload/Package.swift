// swift-tools-version:6.0
//
// The multipart upload benchmark (issue 15): HTTPSessionManager.post(constructingBody:) streaming a
// 1 GiB file to a loopback Python sink, reporting the client's peak RSS. A package of its own beside the
// client suite (Scripts/bench), so that it builds from the FWNetworking sources alone, without fetching
// AsyncHTTPClient and SwiftNIO. Run it with `Scripts/bench-multipart.sh`.

import PackageDescription

let package = Package(
    name: "FWNetworkingMultipartBench",
    dependencies: [
        .package(name: "FWNetworking", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "bench-multipart-upload",
            dependencies: [.product(name: "FWNetworking", package: "FWNetworking")]
        ),
    ]
)
