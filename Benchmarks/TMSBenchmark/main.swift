// TMS simulator binary download (spec §10.5, issue 5): the simulator streams `LL LL` + 2040-byte blocks from the
// image file with the channel's backpressure, so the process's memory must not grow with the image. For each image
// size this prints the download time and throughput over HTTPS with mutual TLS (client and server in this process,
// the client counting bytes without keeping them) and the peak resident set (VmHWM) before and after.
//
//   swift run -c release TMSBenchmark [MB …]        (default 8 64)

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UCubeProtocol
import UCubeSimulator
import UCubeTMSSimulator

func procStatus(_ field: String) -> Int {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

func run(megabytes: Int) async throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tmsbench-\(UUID().uuidString)")
    let catalogue = root.appendingPathComponent("catalogue")
    let state = root.appendingPathComponent("state")
    let size = megabytes * 1024 * 1024
    try await NIOThreadPool.singleton.runIfActive {
        try FileManager.default.createDirectory(at: catalogue, withIntermediateDirectories: true)
        try Data(
            #"{"items":[{"type":0,"label":"SVPP firmware","version":"6.0.1.0","min_version":"6.0.1.0","ciphered":false,"image":"img.bin","signature":"img.sig"}]}"#
                .utf8
        )
        .write(to: catalogue.appendingPathComponent("catalogue.json"))
        try Data(count: size).write(to: catalogue.appendingPathComponent("img.bin"))
        try Data(repeating: 0x5A, count: 256).write(to: catalogue.appendingPathComponent("img.sig"))
    }
    let tms = TMSSimulator()
    let port = try await tms.start(port: 0, stateDirectory: state, catalogue: catalogue)
    let serial = String(SimulatorChoices.DefaultDevice.serialNumber)
    let base = "https://127.0.0.1:\(port)/MDM/jaxrs"
    let dongle = try InstallForLoadKey.Response(
        caCertificate: SimulatorChoices.demoCAProdCertificate,
        kekCertificate: SimulatorChoices.demoKEKCertificate(serial: SimulatorChoices.DefaultDevice.serialNumber)
    ).raw
    let caPEM = try await NIOThreadPool.singleton.runIfActive {
        try Data(contentsOf: TMSSimulator.caCertificateURL(stateDirectory: state))
    }
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(caPEM), format: .pem)])

    // Register with a client that has no identity, then download with the issued one.
    let anonymous = HTTPClient(
        eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
        configuration: HTTPClient.Configuration(tlsConfiguration: tls))
    var register = HTTPClientRequest(url: "\(base)/public/v1/dongle/register/\(serial)/PN")
    register.method = .POST
    register.body = .bytes(ByteBuffer(bytes: dongle))
    let p12 = try await anonymous.execute(register, timeout: .seconds(30)).body.collect(upTo: 1 << 20)
    try await anonymous.shutdown()
    let bundle = try NIOSSLPKCS12Bundle(buffer: Array(p12.readableBytesView), passphrase: Array("gmxsas".utf8))
    tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
    tls.privateKey = .privateKey(bundle.privateKey)
    let client = HTTPClient(
        eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
        configuration: HTTPClient.Configuration(tlsConfiguration: tls))

    let peakBefore = procStatus("VmHWM")
    let clock = ContinuousClock()
    let start = clock.now
    var download = HTTPClientRequest(url: "\(base)/v2/dongle/binary/0/\(serial)/PN")
    download.method = .POST
    download.body = .bytes(ByteBuffer(bytes: dongle))
    let response = try await client.execute(download, timeout: .seconds(600))
    var received = 0
    for try await chunk in response.body { received += chunk.readableBytes }
    let elapsed = clock.now - start
    let peakAfter = procStatus("VmHWM")
    try await client.shutdown()
    await tms.stop()
    try? FileManager.default.removeItem(at: root)

    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let blocks = (size + 2039) / 2040
    print(
        "image \(megabytes) MB: HTTP \(response.status.code), \(received) bytes (expected \(2 + 256 + size + 2 * blocks + 2)),"
            + " \(String(format: "%.2f", seconds)) s, \(String(format: "%.1f", Double(received) / 1_048_576 / seconds)) MB/s,"
            + " peak RSS \(peakBefore / 1024) MB → \(peakAfter / 1024) MB (+\((peakAfter - peakBefore) / 1024) MB)")
}

let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }
for megabytes in sizes.isEmpty ? [8, 64] : sizes {
    try await run(megabytes: megabytes)
}
