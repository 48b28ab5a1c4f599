// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Switchboard",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .visionOS(.v1)],
    // Only the library and its test support are products: SwiftPM fetches for an app every package
    // that a product of this one reaches, whether the app uses that product or not. The emulator,
    // the CLI (`swift run switchboard …` here), the contract tooling and the soak stay targets of
    // this package, so an app fetches only the engine's dependencies (Scripts/check-consumer.sh
    // holds that in CI).
    products: [
        .library(name: "Switchboard", targets: ["Switchboard"]),
        .library(name: "SwitchboardCore", targets: ["SwitchboardCore"]),
        .library(name: "SwitchboardTesting", targets: ["SwitchboardTesting"]),
        .library(name: "SwitchboardConfiguration", targets: ["SwitchboardConfiguration"]),
        .library(name: "SwitchboardNIO", targets: ["SwitchboardNIO"]),
        .library(name: "SwitchboardURLSession", targets: ["SwitchboardURLSession"]),
        .library(name: "SwitchboardConnectors", targets: ["SwitchboardConnectors"]),
        .library(name: "SwitchboardGraphQL", targets: ["SwitchboardGraphQL"]),
        .library(name: "SwitchboardAppSync", targets: ["SwitchboardAppSync"]),
        .library(name: "SwitchboardSync", targets: ["SwitchboardSync"]),
    ],
    traits: [
        .trait(
            name: "SwiftConfiguration",
            description: "Reads the transport selection through swift-configuration's ConfigReader (needs macOS 15 / iOS 18)."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        // Without its default ExternalLoading trait, which only adds compile time.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // The CLI's `shadow --metrics-port` only (not a product, so no app fetches it).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(
            name: "SwitchboardCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Switchboard",
            dependencies: [
                "SwitchboardCore", "SwitchboardSync",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardTesting",
            dependencies: [
                "SwitchboardCore",
                "Switchboard",
                "SwitchboardGraphQL",
                "SwitchboardAppSync",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardConfiguration",
            dependencies: [
                "Switchboard",
                .product(
                    name: "Configuration",
                    package: "swift-configuration",
                    condition: .when(traits: ["SwiftConfiguration"])
                ),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardNIO",
            dependencies: [
                "SwitchboardCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The system's WebSocket engine (URLSessionWebSocketTask): the Apple platforms' connector.
        // Foundation only, so an app on it links no SwiftNIO.
        .target(
            name: "SwitchboardURLSession",
            dependencies: [
                "SwitchboardCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // WebSocketConnectors.platformDefault(): URLSession on Apple platforms, SwiftNIO on Linux.
        // The NIO engine is a dependency on Linux only, so no path from this product to NIOPosix
        // or NIOSSL exists on an Apple platform (Scripts/check-consumer.sh holds that).
        .target(
            name: "SwitchboardConnectors",
            dependencies: [
                "SwitchboardCore", "SwitchboardURLSession",
                .target(name: "SwitchboardNIO", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardAppSync",
            dependencies: [
                "SwitchboardCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardGraphQL",
            dependencies: [
                "SwitchboardCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardSync",
            dependencies: [
                "SwitchboardCore",
                // The REST fallback's default HTTP engine on Linux (FoundationNetworking's URLSession
                // can crash a busy process there); Apple platforms use URLSession and link no NIO.
                .target(name: "SwitchboardNIO", condition: .when(platforms: [.linux])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardEmulator",
            dependencies: [
                "SwitchboardCore",
                "SwitchboardSync",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SwitchboardContract",
            dependencies: [
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.embedInCode("Resources/appsync-events.openapi.yaml")],
            swiftSettings: swiftSettings
        ),
        // The chaos soak (not a product): `switchboard soak` and the short soak in `swift test`
        // share it.
        // The soak's reading of malloc (glibc's mallinfo2 and malloc_trim, which Swift's Glibc
        // module does not export); compiles to "cannot say" on other C libraries.
        .target(name: "CSwitchboardMalloc"),
        .target(
            name: "SwitchboardSoak",
            dependencies: [
                "CSwitchboardMalloc", "Switchboard", "SwitchboardCore", "SwitchboardNIO", "SwitchboardGraphQL", "SwitchboardAppSync",
                "SwitchboardEmulator", "SwitchboardSync", "SwitchboardTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Fuzz/: the properties the libFuzzer targets check, also run over the seed corpus by the unit tests.
        .target(
            name: "SwitchboardFuzzChecks",
            dependencies: ["Switchboard", "SwitchboardCore", "SwitchboardAppSync", "SwitchboardGraphQL"],
            path: "Fuzz/Checks",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "switchboard",
            dependencies: [
                "Switchboard", "SwitchboardCore", "SwitchboardNIO", "SwitchboardGraphQL", "SwitchboardAppSync",
                "SwitchboardEmulator", "SwitchboardContract", "SwitchboardTesting", "SwitchboardSync", "SwitchboardSoak",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardCoreTests",
            dependencies: ["SwitchboardCore", "SwitchboardTesting", "CSwitchboardMalloc"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardTests",
            dependencies: [
                "Switchboard", "SwitchboardCore", "SwitchboardTesting", "SwitchboardSync", "SwitchboardFuzzChecks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardTestingTests",
            dependencies: ["SwitchboardTesting", "SwitchboardCore", "Switchboard"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardConfigurationTests",
            dependencies: [
                "SwitchboardConfiguration", "Switchboard", "SwitchboardTesting",
                .product(
                    name: "Configuration",
                    package: "swift-configuration",
                    condition: .when(traits: ["SwiftConfiguration"])
                ),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardNIOTests",
            dependencies: [
                "SwitchboardNIO", "SwitchboardCore", "SwitchboardTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Drives URLSessionWebSocketConnector's logic through its task seam with tasks bridged to
        // the NIO engine: the system's WebSockets do not run on Linux. Not a product.
        .target(
            name: "URLSessionTaskBridge",
            dependencies: [
                "SwitchboardURLSession", "SwitchboardNIO", "SwitchboardCore",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/URLSessionTaskBridge",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardURLSessionTests",
            dependencies: [
                "SwitchboardURLSession", "SwitchboardConnectors", "URLSessionTaskBridge", "SwitchboardCore",
                "SwitchboardEmulator", "SwitchboardTesting", "SwitchboardNIO",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardEmulatorTests",
            dependencies: [
                "SwitchboardEmulator", "SwitchboardCore", "SwitchboardTesting", "SwitchboardSync", "LegacyServerHarness",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardAppSyncTests",
            dependencies: [
                "SwitchboardAppSync", "SwitchboardTesting", "Switchboard", "SwitchboardCore", "SwitchboardEmulator",
                "SwitchboardFuzzChecks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardGraphQLTests",
            dependencies: [
                "SwitchboardGraphQL", "SwitchboardTesting", "Switchboard", "SwitchboardCore", "SwitchboardFuzzChecks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // Starts Scripts/legacy-server (a real GraphQL server, strawberry-graphql) for the tests that
        // run the legacy transport against it and record the legacy fixtures. Not a product.
        .target(
            name: "LegacyServerHarness",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/LegacyServerHarness",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "URLSessionTaskBridge",
                "Switchboard", "SwitchboardCore", "SwitchboardNIO", "SwitchboardGraphQL", "SwitchboardAppSync",
                "SwitchboardEmulator", "SwitchboardTesting", "SwitchboardSync", "LegacyServerHarness",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardSoakTests",
            dependencies: [
                // The short soaks run the emulator as a child `switchboard serve`, as `switchboard soak` does.
                "switchboard", "SwitchboardSoak", "SwitchboardTesting", "SwitchboardEmulator", "SwitchboardSync", "SwitchboardCore",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardSyncTests",
            dependencies: [
                "SwitchboardSync", "SwitchboardCore", "SwitchboardNIO", "SwitchboardEmulator", "SwitchboardTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardContractTests",
            dependencies: [
                "SwitchboardContract", "Switchboard",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MigrationTests",
            dependencies: [
                "Switchboard", "SwitchboardCore", "SwitchboardNIO", "SwitchboardGraphQL", "SwitchboardAppSync",
                "SwitchboardEmulator", "SwitchboardTesting", "LegacyServerHarness",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TransportConformanceTests",
            dependencies: [
                "URLSessionTaskBridge",
                "Switchboard", "SwitchboardCore", "SwitchboardNIO", "SwitchboardGraphQL", "SwitchboardAppSync",
                "SwitchboardEmulator", "SwitchboardTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Examples/: built and run by `swift test` like the rest, but not products of the package.
        .executableTarget(
            name: "switchboard-example",
            dependencies: [
                "Switchboard", "SwitchboardAppSync", "SwitchboardGraphQL", "SwitchboardNIO", "SwitchboardEmulator",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/ConsumerApp",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExampleParityTests",
            dependencies: [
                "switchboard-example",
                "Switchboard", "SwitchboardAppSync", "SwitchboardGraphQL", "SwitchboardNIO", "SwitchboardEmulator",
                "SwitchboardTesting",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/ParityTest",
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardCLITests",
            dependencies: [
                "switchboard", "Switchboard", "SwitchboardCore", "SwitchboardEmulator", "SwitchboardTesting", "SwitchboardSoak",
                "LegacyServerHarness",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Examples/ViewModel: a platform-neutral view model over `any BackendNotifying`, and its
        // tests driven by SwitchboardTesting's MockNotifier. Not products of the package.
        .target(
            name: "ExampleViewModel",
            dependencies: ["Switchboard"],
            path: "Examples/ViewModel",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExampleViewModelTests",
            dependencies: ["ExampleViewModel", "Switchboard", "SwitchboardTesting"],
            path: "Examples/ViewModelTests",
            swiftSettings: swiftSettings
        ),
    ]
)

// For the packages of this repository only (Benchmarks/ runs the emulator in-process): with
// SWITCHBOARD_DEVELOPMENT_PRODUCTS=1 the emulator is a product too. An app never sets it, so it
// never fetches the emulator's dependencies (Hummingbird, GraphQL, …).
if Context.environment["SWITCHBOARD_DEVELOPMENT_PRODUCTS"] == "1" {
    package.products.append(.library(name: "SwitchboardEmulator", targets: ["SwitchboardEmulator"]))
}

// The libFuzzer targets, declared only for Scripts/fuzz.sh (SWITCHBOARD_FUZZ=1): they link with
// -sanitize=fuzzer, whose runtime they call, so no other build can link them.
if Context.environment["SWITCHBOARD_FUZZ"] == "1" {
    package.targets.append(
        .target(
            name: "SwitchboardFuzzDriver",
            dependencies: ["SwitchboardFuzzChecks"],
            path: "Fuzz/Driver",
            swiftSettings: swiftSettings + [.enableExperimentalFeature("Extern")]
        )
    )
    for name in ["AppSyncCodec", "GraphQLCodec", "Models"] {
        package.targets.append(
            .executableTarget(
                name: "Fuzz\(name)",
                dependencies: ["SwitchboardFuzzChecks", "SwitchboardFuzzDriver"],
                path: "Fuzz/\(name)",
                swiftSettings: swiftSettings
            )
        )
    }
}
