// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// NIO's HTTP server/client stack over TLS, shared by the TMS client, its simulator and their tests.
let httpsStack: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
]
/// The PKI the TMS simulator (and the tests that make their own certificates) builds with.
let pki: [Target.Dependency] = [
    .product(name: "X509", package: "swift-certificates"),
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "SwiftASN1", package: "swift-asn1"),
]
/// libdbus-1's headers, outside the compiler's search path (`pkg-config --cflags dbus-1`): the generic ones and the
/// architecture's dbus-arch-deps.h (Debian and Ubuntu: multiarch; Fedora: lib64). A directory that does not exist is
/// ignored.
let dbusHeaderSearchPaths: [String] = {
    #if arch(arm64)
    let multiarch = "aarch64-linux-gnu"
    #else
    let multiarch = "x86_64-linux-gnu"
    #endif
    return [
        "/usr/include/dbus-1.0", "/usr/lib/\(multiarch)/dbus-1.0/include", "/usr/lib64/dbus-1.0/include",
        "/usr/lib/dbus-1.0/include",
    ].map { "-I" + $0 }
}()
let asyncHTTPClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")

let package = Package(
    name: "ucube",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "ucube", targets: ["ucube"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // TMS client (spec §10): HTTPS with a per-terminal client certificate.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // TMS simulator (spec §10): in-process PKI (CA, server and client certificates).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // libdl's dlopen behind a stub per function: the three C libraries below are loaded when a command first
        // calls one of their functions, not by the dynamic loader at every start (Benchmarks/startup.sh).
        .target(name: "CLazyLibrary"),
        // OpenSSL's libcrypto (Debian: libssl-dev) for the TDES primitive; no cipher is written by hand. Loaded lazily.
        .target(name: "CLibCrypto", dependencies: ["CLazyLibrary"]),
        // GNU readline (Debian: libreadline-dev; GPL-3.0) for `ucube shell`. Loaded lazily.
        .target(name: "CReadline", dependencies: ["CLazyLibrary"]),
        // libdbus-1 (Debian: libdbus-1-dev) for BlueZ's D-Bus API; also the RFCOMM socket address layout. Loaded
        // lazily. Not a system-library target with pkgConfig "dbus-1": SwiftPM would link the library (pkg-config's
        // Libs). Swift sees the API through CDBus's own declarations; lazy.c checks them against <dbus/dbus.h>.
        .target(name: "CDBus", dependencies: ["CLazyLibrary"], cSettings: [.unsafeFlags(dbusHeaderSearchPaths)]),
        // The commit `ucube --version` prints: a slot in the binary that `make` fills in after linking.
        .target(name: "CBuildInfo"),
        // The small helpers every layer shares, one home each: Duration as seconds, errno text, the write(2) loop, the
        // XDG directory rules.
        .target(name: "UCubeSupport", swiftSettings: strict),
        // Pure: frames, BER-TLV, tag dictionary, commands, statuses, currencies. No I/O, clocks or randomness.
        .target(name: "UCubeProtocol", dependencies: ["UCubeSupport"], swiftSettings: strict),
        // Pure: DUKPT, retail MAC, PIN blocks, SRED, on libcrypto. Uses UCubeProtocol's Hex and CodedError only.
        .target(name: "UCubeCrypto", dependencies: ["UCubeProtocol", "CLibCrypto"], swiftSettings: strict),
        // I/O: transports and the RPC client actor.
        .target(
            name: "UCubeLink",
            dependencies: [
                "UCubeProtocol", "UCubeSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Bluetooth transports: BLE through BlueZ over D-Bus (uCube Touch), RFCOMM sockets (classic uCube), scanning.
        .target(
            name: "UCubeBluetooth",
            dependencies: [
                "UCubeProtocol", "UCubeLink", "UCubeSupport", "CDBus",
            ],
            swiftSettings: strict
        ),
        // A uCube Touch peer: reuses the pure layers, never the driver's client.
        .target(
            name: "UCubeSimulator",
            dependencies: [
                "UCubeProtocol", "UCubeCrypto", "UCubeSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The EMV payment state machine (pure), its engine over the RPC client, tasks and journal.
        .target(
            name: "UCubePayment",
            dependencies: [
                "UCubeProtocol", "UCubeLink", "UCubeSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // The log module (spec §11): rotating file handler, per-layer levels, PAN scrubbing, the log bundle (§10.7).
        .target(
            name: "UCubeLog",
            dependencies: [
                "UCubeProtocol", "UCubeSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict),
        // What every command runs on, below the command line: the one door out (`Console`) and the JSON forms, the
        // error table and exit codes, the state and runtime directories, bounded reads, locks and the files kept
        // between commands, a command's link, the authorisation hook, the word parsers, and the workflows that need
        // no command line: fleet runs, suites, diagnosis and `ucube serve`'s API. No argument parsing, no prompting.
        .target(
            name: "UCubeRuntime",
            dependencies: [
                "UCubeProtocol", "UCubeLink", "UCubeSimulator", "UCubePayment", "UCubeLog", "UCubeBluetooth",
                "UCubeTMS", "UCubeTMSSimulator", "CBuildInfo", "UCubeSupport",
                .product(name: "Logging", package: "swift-log"),
                // SHA-256 of the files a fleet run's work is read from (FleetWork) and of serve's paired tokens
                // (ServeTokens.swift).
                .product(name: "Crypto", package: "swift-crypto"),
                // The authorisation hook's https form (HostHTTPS.swift), as the TMS client; NIOHTTP1 also carries
                // `ucube serve`'s HTTP server (ServeHTTP.swift).
                asyncHTTPClient,
            ] + httpsStack,
            swiftSettings: strict
        ),
        // The command line: every command, the shell, the output seam. A library so that the tests and the fuzz
        // targets (Fuzz/) reach it; the `ucube` executable is its one-line main.
        .target(
            name: "UCubeCLI",
            dependencies: [
                "UCubeRuntime", "UCubeProtocol", "UCubeLink", "UCubeSimulator", "UCubePayment", "CReadline",
                "UCubeLog", "UCubeBluetooth", "UCubeTMS", "UCubeTMSSimulator", "UCubeHostSimulator", "UCubeSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "ucube", dependencies: ["UCubeCLI"], swiftSettings: strict),
        // Every input from outside the process as a libFuzzer target (Fuzz/README.md); `swift test` replays their corpora.
        .target(
            name: "UCubeFuzzTargets",
            dependencies: [
                "UCubeProtocol", "UCubeCrypto", "UCubeLink", "UCubeBluetooth", "UCubePayment", "UCubeTMS", "UCubeCLI",
                "UCubeSimulator", "UCubeSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict),
        .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
        // The fuzz driver: libFuzzer in Scripts/fuzz.sh's build, a replayer and seed writer in an ordinary one.
        .executableTarget(
            name: "UCubeFuzz", dependencies: ["UCubeFuzzTargets", "CFuzzDriver"], path: "Fuzz/Driver",
            swiftSettings: strict),
        .testTarget(
            name: "UCubeFuzzTargetsTests",
            dependencies: ["UCubeFuzzTargets", "UCubePayment", "UCubeProtocol", "UCubeBluetooth", "UCubeTMS"],
            swiftSettings: strict),
        // Benchmarks print figures; they are not tests (`swift run -c release PaymentBenchmark`).
        .executableTarget(
            name: "PaymentBenchmark",
            dependencies: ["UCubePayment", "UCubeSimulator", "UCubeLink", "UCubeProtocol"],
            path: "Benchmarks/PaymentBenchmark",
            swiftSettings: strict),
        // TMS (MDM) client over AsyncHTTPClient + NIOSSL, identity store and pure update planning (spec §10).
        .target(
            name: "UCubeTMS",
            dependencies: [
                "UCubeProtocol", "UCubeLink", "UCubeSupport", "CLibCrypto", asyncHTTPClient,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ] + httpsStack,
            swiftSettings: strict
        ),
        .testTarget(
            name: "UCubeTMSTests",
            dependencies: [
                "UCubeTMS", "UCubeProtocol", "UCubeLink", "UCubeSimulator", "UCubeCrypto", "CLibCrypto",
                asyncHTTPClient,
                "UCubeTMSSimulator",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ] + httpsStack + pki,
            swiftSettings: strict
        ),
        // TMS (MDM) server simulator: HTTPS + mutual TLS with its own CA, catalogue of signed binaries (spec §10).
        .target(
            name: "UCubeTMSSimulator",
            dependencies: [
                "UCubeSupport",
                "UCubeProtocol", "UCubeSimulator", "CLibCrypto",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ] + httpsStack + pki,
            swiftSettings: strict
        ),
        // Authorisation host simulator (`simulate --host`): the HTTPS hook API with its own CA, SRED deciphered, ARQC
        // checked, ARPC answered, amount rules, reversals, faults (docs/host-simulator.md).
        .target(
            name: "UCubeHostSimulator",
            dependencies: ["UCubeTMSSimulator", "UCubeCrypto", "UCubeProtocol", "UCubeSupport"] + httpsStack,
            swiftSettings: strict
        ),
        .testTarget(
            name: "UCubeHostSimulatorTests",
            dependencies: [
                "UCubeHostSimulator", "UCubeTMSSimulator", "UCubeCrypto", "UCubeProtocol", asyncHTTPClient,
            ] + httpsStack,
            swiftSettings: strict
        ),
        // Prints the TMS simulator's binary download throughput and peak memory (`swift run -c release TMSBenchmark`).
        .executableTarget(
            name: "TMSBenchmark",
            dependencies: [
                "UCubeTMSSimulator", "UCubeSimulator", "UCubeProtocol", asyncHTTPClient,
            ] + httpsStack,
            path: "Benchmarks/TMSBenchmark",
            swiftSettings: strict),
        .testTarget(
            name: "UCubeTMSSimulatorTests",
            dependencies: [
                "UCubeTMSSimulator", "UCubeProtocol", "UCubeSimulator", asyncHTTPClient,
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ] + httpsStack + pki,
            swiftSettings: strict
        ),
        // Prints binary-load throughput over the simulator's link model and peak memory (`swift run -c release UpdateBenchmark`).
        .executableTarget(
            name: "UpdateBenchmark",
            dependencies: ["UCubeTMS", "UCubeSimulator", "UCubeLink", "UCubeProtocol"],
            path: "Benchmarks/UpdateBenchmark",
            swiftSettings: strict),
        // Bounds how many tests run at once in the test process (issue 36: a constructor, before Swift Testing starts).
        .target(name: "CTestParallelism", path: "Tests/CTestParallelism"),
        .testTarget(
            name: "UCubeProtocolTests", dependencies: ["UCubeProtocol", "CTestParallelism"], swiftSettings: strict),
        .testTarget(name: "UCubeCryptoTests", dependencies: ["UCubeCrypto"], swiftSettings: strict),
        .testTarget(
            name: "UCubeLinkTests",
            dependencies: ["UCubeLink", "UCubeSimulator", "UCubeCrypto", "UCubeProtocol", "UCubeSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "UCubeBluetoothTests",
            dependencies: ["UCubeBluetooth", "UCubeLink", "UCubeProtocol", "UCubeSupport", "CDBus"],
            swiftSettings: strict),
        .testTarget(
            name: "UCubeSimulatorTests",
            dependencies: ["UCubeSimulator", "UCubeProtocol", "UCubeCrypto", "UCubeSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "UCubePaymentTests",
            dependencies: ["UCubePayment", "UCubeLink", "UCubeSimulator", "UCubeProtocol", "UCubeCrypto"],
            swiftSettings: strict),
        .testTarget(
            name: "UCubeLogTests",
            dependencies: [
                "UCubeLog", "UCubeProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ucubeTests",
            dependencies: [
                "ucube", "UCubeCLI", "UCubeRuntime", "UCubeProtocol", "UCubeCrypto", "UCubeSimulator", "UCubePayment",
                "UCubeLog", "UCubeSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict),
    ]
)
