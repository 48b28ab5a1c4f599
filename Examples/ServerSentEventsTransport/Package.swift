// swift-tools-version: 6.1
// A third transport for Switchboard, written the way an outside team would: against the
// package's public API only (SwitchboardCore's EventTransport seam, SwitchboardTesting's
// conformance suite), in a package of its own. Built and tested by .ci/run.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ServerSentEventsTransport",
    // Synchronization's Mutex sets the Apple floors.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .visionOS(.v2)],
    products: [
        .library(name: "SwitchboardServerSentEvents", targets: ["SwitchboardServerSentEvents"]),
    ],
    dependencies: [
        .package(name: "Switchboard", path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The emulator's users sign in with HS256 JWTs (EmulatorChild); the main package builds it anyway.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(
            name: "SwitchboardServerSentEvents",
            dependencies: [
                .product(name: "SwitchboardCore", package: "Switchboard"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The emulator as a child process and the nine events, for the demo and the tests (not a product).
        .target(
            name: "ExampleSupport",
            dependencies: [
                .product(name: "Switchboard", package: "Switchboard"),
                .product(name: "SwitchboardCore", package: "Switchboard"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "sse-demo",
            dependencies: [
                "SwitchboardServerSentEvents", "ExampleSupport",
                .product(name: "Switchboard", package: "Switchboard"),
                .product(name: "SwitchboardCore", package: "Switchboard"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardServerSentEventsTests",
            dependencies: [
                "SwitchboardServerSentEvents", "ExampleSupport",
                .product(name: "Switchboard", package: "Switchboard"),
                .product(name: "SwitchboardCore", package: "Switchboard"),
                .product(name: "SwitchboardTesting", package: "Switchboard"),
                // The parity test replays the main package's fixtures through the built-in transports.
                .product(name: "SwitchboardAppSync", package: "Switchboard"),
                .product(name: "SwitchboardGraphQL", package: "Switchboard"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
