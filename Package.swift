// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ucube",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "ucube", targets: ["ucube"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // OpenSSL's libcrypto (Debian: libssl-dev) for the TDES primitive; no cipher is written by hand.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // GNU readline (Debian: libreadline-dev; GPL-3.0) for `ucube shell`. Debian ships no readline.pc: linked directly.
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),
        // libdbus-1 (Debian: libdbus-1-dev) for BlueZ's D-Bus API; also the RFCOMM socket address layout.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // Pure: frames, BER-TLV, tag dictionary, commands, statuses, currencies. No I/O, clocks or randomness.
        .target(name: "UCubeProtocol", swiftSettings: strict),
        // Pure: DUKPT, retail MAC, PIN blocks, SRED, on libcrypto. Uses UCubeProtocol's Hex and CodedError only.
        .target(name: "UCubeCrypto", dependencies: ["UCubeProtocol", "CLibCrypto"], swiftSettings: strict),
        // I/O: transports and the RPC client actor.
        .target(
            name: "UCubeLink",
            dependencies: [
                "UCubeProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Bluetooth transports: BLE through BlueZ over D-Bus (uCube Touch), RFCOMM sockets (classic uCube), scanning.
        .target(
            name: "UCubeBluetooth",
            dependencies: [
                "UCubeProtocol", "UCubeLink", "CDBus",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // A uCube Touch peer: reuses the pure layers, never the driver's client.
        .target(
            name: "UCubeSimulator",
            dependencies: [
                "UCubeProtocol", "UCubeCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The EMV payment state machine (pure), its engine over the RPC client, tasks and journal.
        .target(name: "UCubePayment", dependencies: ["UCubeProtocol", "UCubeLink"], swiftSettings: strict),
        .executableTarget(
            name: "ucube",
            dependencies: [
                "UCubeProtocol", "UCubeCrypto", "UCubeLink", "UCubeSimulator", "UCubePayment", "CReadline", "UCubeBluetooth",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Benchmarks print figures; they are not tests (`swift run -c release PaymentBenchmark`).
        .executableTarget(
            name: "PaymentBenchmark",
            dependencies: ["UCubePayment", "UCubeSimulator", "UCubeLink", "UCubeProtocol"],
            path: "Benchmarks/PaymentBenchmark",
            swiftSettings: strict),
        .testTarget(name: "UCubeProtocolTests", dependencies: ["UCubeProtocol"], swiftSettings: strict),
        .testTarget(name: "UCubeCryptoTests", dependencies: ["UCubeCrypto"], swiftSettings: strict),
        .testTarget(
            name: "UCubeLinkTests",
            dependencies: ["UCubeLink", "UCubeSimulator", "UCubeCrypto", "UCubeProtocol"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "UCubeBluetoothTests", dependencies: ["UCubeBluetooth", "UCubeLink", "UCubeProtocol", "CDBus"],
            swiftSettings: strict),
        .testTarget(name: "UCubeSimulatorTests", dependencies: ["UCubeSimulator", "UCubeProtocol", "UCubeCrypto"], swiftSettings: strict),
        .testTarget(
            name: "UCubePaymentTests",
            dependencies: ["UCubePayment", "UCubeLink", "UCubeSimulator", "UCubeProtocol", "UCubeCrypto"],
            swiftSettings: strict),
        .testTarget(
            name: "ucubeTests",
            dependencies: ["ucube", "UCubeProtocol", "UCubeCrypto", "UCubeSimulator", "UCubePayment"],
            swiftSettings: strict),
    ]
)
