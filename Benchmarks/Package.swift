// swift-tools-version: 6.1
import PackageDescription

// A separate package so that CI and users of Switchboard never build ordo-one/benchmark.
// Run everything with `Benchmarks/run.sh` (it sets SWITCHBOARD_DEVELOPMENT_PRODUCTS=1, which makes
// the emulator a product of the root package); see BENCHMARKS.md at the repository root.
let package = Package(
    name: "SwitchboardBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Switchboard", path: ".."),
        // Only the malloc interposer: the default RuntimeInterposer trait needs
        // ordo-one/swift-runtime-interposer, which the local package mirror does not hold.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Already a dependency of benchmark; named here for its allocation counters.
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The peer column: what an app team would write without Switchboard (swift-websocket's
        // WSClient, re-exported by hummingbird-websocket, the version the root package's tests use).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "SwitchboardBenchmarks",
            dependencies: [
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Switchboard", package: "Switchboard"),
                .product(name: "SwitchboardCore", package: "Switchboard"),
                .product(name: "SwitchboardNIO", package: "Switchboard"),
                .product(name: "SwitchboardGraphQL", package: "Switchboard"),
                .product(name: "SwitchboardAppSync", package: "Switchboard"),
                .product(name: "SwitchboardEmulator", package: "Switchboard"),
                .product(name: "SwitchboardSync", package: "Switchboard"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/SwitchboardBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
    ]
)
