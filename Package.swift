// swift-tools-version:6.0
//
// FWNetworking: a pure-Swift HTTP/1.1 client stack for Linux. See ../shared/ARCHITECTURE.md for the
// layers. No package dependencies: the system OpenSSL (libssl-dev) is the only library we link
// beyond libc, and zlib for content decoding.

import PackageDescription

/// fwget's link inputs: linker scripts and the symbol ordering file (see the fwget target).
let fwgetLink = Context.packageDirectory + "/Sources/fwget/Link"

let package = Package(
    name: "FWNetworking",
    products: [
        .library(name: "FWNetworking", targets: ["FWNetworking"]),
        .library(name: "FWWire", targets: ["FWWire"]),
        .executable(name: "fwcurl", targets: ["fwcurl"]),
        .library(name: "FWHTTP", targets: ["FWHTTP"]),
        .executable(name: "fwget", targets: ["fwget"]),
    ],
    targets: [
        // MARK: Product targets, bottom to top

        // These dependencies follow ARCHITECTURE.md's layer table; Scripts/check-deps.sh checks both them
        // and every import against it.
        .target(name: "CFWShims"),
        .target(name: "CFWNetlink"),
        .target(
            name: "CFWOpenSSL",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        .target(name: "CFWZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(name: "FWWire"),
        .target(name: "FWLoop", dependencies: ["CFWShims"]),
        .target(name: "FWTLS", dependencies: ["CFWOpenSSL"]),
        .target(name: "FWTransport", dependencies: ["FWWire", "FWLoop", "FWTLS", "CFWZlib"]),
        // The kernel network-change monitor (netlink), apart from FWLoop so that FWTransport and FWHTTP (and
        // fwget) do not link it: only the session layer's waitsForConnectivity and reachability use it.
        .target(name: "FWNetworkMonitor", dependencies: ["FWLoop", "CFWNetlink"]),
        .target(name: "FWURLSession", dependencies: ["FWTransport", "FWTLS", "FWNetworkMonitor"]),
        .target(name: "FWNetworking", dependencies: ["FWURLSession", "FWTLS", "FWLoop", "FWNetworkMonitor"]),
        .executableTarget(name: "fwcurl", dependencies: ["FWNetworking"]),
        // The Foundation-free client (issue 24): FWHTTP over the transport, and the fwget tool on it alone.
        .target(name: "FWHTTP", dependencies: ["FWTransport", "FWTLS", "FWWire", "FWLoop"]),
        // fwget's release link (issue 24: at most 8 MB stripped, Scripts/size-check.sh; at most curl's peak
        // memory for one fetch, Scripts/fwget-vs-curl.sh). Flags of an executable target only: a package that
        // depends on the FWHTTP library never builds it.
        // - position-dependent, no exported symbols: -660 KB of relocations, -250 KB of dynamic symbols;
        // - lld, folding every identical function (--icf=all: 103 KB smaller than gold's --icf=safe, which
        //   also ignores an ordering file; folded functions may share an address, and fwget compares none)
        //   and putting the functions a fetch runs first and together (Link/hot-functions.txt, written by
        //   Scripts/fwget-order.sh): the kernel maps program pages 64 KB around each fault, so scattered hot
        //   code is resident far beyond its size (-1.6 MB peak RSS for one HTTPS GET);
        // - the C++ library and its unwinder linked statically (Link/libstdc++.so says how): the process
        //   maps no libstdc++.so or libgcc_s.so.
        .executableTarget(
            name: "fwget", dependencies: ["FWHTTP"], exclude: ["Link"],
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-L", fwgetLink,
                                           "-Xlinker", "-no-pie", "-Xlinker", "--no-export-dynamic",
                                           "-Xlinker", "--icf=all",
                                           "-Xlinker", "--symbol-ordering-file=\(fwgetLink)/hot-functions.txt",
                                           "-Xlinker", "--no-warn-symbol-ordering"],
                                          .when(configuration: .release))]
        ),

        // MARK: Test support and tests

        .target(name: "TestSupport", dependencies: ["FWWire", "FWLoop", "FWTLS"]),
        .testTarget(name: "FWWireTests", dependencies: ["FWWire", "TestSupport"]),
        .testTarget(name: "FWLoopTests", dependencies: ["FWLoop", "TestSupport"]),
        .testTarget(name: "FWNetworkMonitorTests", dependencies: ["FWNetworkMonitor", "FWLoop", "TestSupport"]),
        .testTarget(name: "FWTLSTests", dependencies: ["FWTLS", "TestSupport"]),
        .testTarget(name: "FWTransportTests", dependencies: ["FWTransport", "TestSupport"]),
        .testTarget(name: "FWURLSessionTests", dependencies: ["FWURLSession", "FWNetworkMonitor", "TestSupport"]),
        .testTarget(name: "FWNetworkingTests", dependencies: ["FWNetworking", "FWNetworkMonitor", "TestSupport"]),
        .testTarget(name: "FWHTTPTests", dependencies: ["FWHTTP", "TestSupport"]),
        .testTarget(name: "IntegrationTests", dependencies: ["FWNetworking", "TestSupport"]),
        // Run by IntegrationTests inside network namespaces they create: reports reachability transitions
        // and waitsForConnectivity outcomes as lines (Tests/ReachabilityProbe/main.swift).
        .executableTarget(
            name: "ReachabilityProbe", dependencies: ["FWNetworking", "TestSupport"], path: "Tests/ReachabilityProbe"
        ),
        // Counts heap allocations per keep-alive GET (URLSession and HTTPTransport) against the budgets in
        // Tests/AllocationBudget/budget.txt. CAllocationCounter defines malloc and friends: only this
        // executable may depend on it, no library or test target.
        .target(name: "CAllocationCounter", path: "Tests/AllocationCounter"),
        .executableTarget(
            name: "AllocationBudget",
            dependencies: ["CAllocationCounter", "FWNetworking", "FWTransport", "FWLoop", "FWWire"],
            path: "Tests/AllocationBudget", exclude: ["budget.txt"]
        ),
        // Run by IntegrationTests in a process of its own: one request through one public path (or one memory
        // scenario), reporting its outcome and peak memory (Tests/PathProbe/main.swift).
        .executableTarget(
            name: "PathProbe", dependencies: ["FWNetworking", "FWTLS", "TestSupport"], path: "Tests/PathProbe"
        ),
        // The workload Scripts/profile.sh profiles: sequential GETs through URLSession with completion handlers.
        .executableTarget(name: "ProfileClient", dependencies: ["FWNetworking"], path: "Tests/ProfileClient"),
    ]
)
