import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

@testable import UCubeTMSSimulator

@Suite("TMS simulator robustness")
struct TMSRobustnessTests {
    private typealias F = TMSFixture

    /// Connects over TCP (and TLS when `tls`), writes `bytes`, returns everything read until the server closes.
    private static func exchange(port: Int, caURL: URL, tls: Bool, _ bytes: [UInt8]) async throws -> [UInt8] {
        let caPEM = try await F.onPool { try Data(contentsOf: caURL) }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(caPEM), format: .pem)])
        let context = try NIOSSLContext(configuration: configuration)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if tls {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: nil))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: bytes))
            var received: [UInt8] = []
            do {
                for try await buffer in inbound { received += buffer.readableBytesView }
            } catch {
                // An unclean TLS shutdown after the answer: what was read is the answer.
            }
            return received
        }
    }

    @Test("non-TLS bytes and malformed HTTP over TLS end only that connection; the server keeps serving")
    func malformedInput() async throws {
        try await F.with { fixture in
            let plain = try await Self.exchange(
                port: fixture.port, caURL: fixture.caURL, tls: false, Array("GET / HTTP/1.1\r\n\r\n".utf8))
            #expect(!String(decoding: plain, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            let garbage = try await Self.exchange(
                port: fixture.port, caURL: fixture.caURL, tls: true,
                [0x01, 0x02, 0xFF] + Array(" NOT HTTP\r\n\r\n".utf8))
            #expect(String(decoding: garbage, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
            let huge = Array("GET /\(String(repeating: "a", count: 200_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            let hugeAnswer = try await Self.exchange(port: fixture.port, caURL: fixture.caURL, tls: true, huge)
            #expect(!String(decoding: hugeAnswer, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            let status = try await fixture.withClient { client in
                try await F.send(
                    client, .POST, fixture.url("/public/v1/dongle/register/\(F.serial)/\(F.partNumber)"),
                    body: try F.dongleCertificate()
                ).status
            }
            #expect(status == 200)
        }
    }

    @Test("several terminals register and download at once")
    func concurrentTerminals() async throws {
        try await F.with(imageSize: 50_000) { fixture in
            let serials = (1...6).map { String(300_000_000 + $0) }
            let results = try await withThrowingTaskGroup(of: (String, Int, Int).self) { group in
                for serial in serials {
                    group.addTask {
                        let identity = try await fixture.identity(serial: serial)
                        return try await fixture.withClient(identity: identity) { client in
                            let answer = try await F.send(
                                client, .POST, fixture.url("/v2/dongle/binary/0/\(serial)/\(F.partNumber)"),
                                body: try F.dongleCertificate(serial: serial))
                            return (serial, answer.status, answer.body.count)
                        }
                    }
                }
                var results: [(String, Int, Int)] = []
                for try await result in group { results.append(result) }
                return results
            }
            let expectedLength = 2 + fixture.signature.count + 50_000 + 2 * 25 + 2
            #expect(Set(results.map(\.0)) == Set(serials))
            #expect(results.allSatisfy { $0.1 == 200 && $0.2 == expectedLength })
            #expect(await fixture.tms.registeredSerials() == Set(serials))
        }
    }

    @Test("stop() closes a connection whose answer is still delayed")
    func stopClosesPendingConnections() async throws {
        let fixture = try await F.start()
        let identity = try await fixture.identity()
        await fixture.tms.setFault(.delay(.seconds(600)), for: .config)
        let url = fixture.url("/v2/dongle/config/\(F.serial)/\(F.partNumber)")
        let outcome = try await fixture.withClient(identity: identity) { client in
            async let pending: Result<Int, any Error> = {
                do {
                    return .success(try await F.send(client, .GET, url, timeout: .seconds(30)).status)
                } catch {
                    return .failure(error)
                }
            }()
            // Wait until the server holds the request (the fault is used), bounded by a hang guard.
            for _ in 0..<3000 where await fixture.tms.faultsRemaining(for: .config) > 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await fixture.tms.faultsRemaining(for: .config) == 0)
            await fixture.stop()
            return await pending
        }
        switch outcome {
        case .success(let status): Issue.record("the delayed request was answered \(status) after stop()")
        case .failure(let error):
            #expect((error as? HTTPClientError) != .deadlineExceeded, "stop() must close the connection, not wait")
        }
    }

    /// Re-frames a §10.5 body as it arrives: `LL LL` + signature, then `LL LL` + block … `00 00`.
    struct FrameReader {
        let signature: [UInt8]
        let image: [UInt8]
        var pending = ByteBuffer()
        var signatureSeen = false
        var blocks = 0
        var imageOffset = 0
        var total = 0
        var matches = true
        var ended = false

        mutating func feed(_ chunk: ByteBuffer) {
            total += chunk.readableBytes
            pending.writeImmutableBuffer(chunk)
            while !ended, let length = pending.getInteger(at: pending.readerIndex, as: UInt16.self),
                pending.readableBytes >= 2 + Int(length)
            {
                pending.moveReaderIndex(forwardBy: 2)
                let bytes = pending.readBytes(length: Int(length)) ?? []
                if !signatureSeen {
                    signatureSeen = true
                    matches = matches && bytes == signature
                } else if bytes.isEmpty {
                    ended = true
                } else {
                    blocks += 1
                    let end = imageOffset + bytes.count
                    matches =
                        matches && bytes.count <= TMSSimulatorChoices.binaryBlockSize && end <= image.count
                        && bytes[...] == image[imageOffset..<end]
                    imageOffset = end
                }
            }
        }
    }

    private static func download(
        _ client: HTTPClient, url: String, reader: FrameReader
    ) async throws -> (HTTPResponseStatus, FrameReader) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.body = .bytes(ByteBuffer(bytes: try F.dongleCertificate()))
        let response = try await client.execute(request, timeout: .seconds(30))
        var reader = reader
        for try await chunk in response.body { reader.feed(chunk) }
        return (response.status, reader)
    }

    @Test("an 8 MB image streams with exact §10.5 framing, read incrementally by the client")
    func largeImageStreams() async throws {
        let size = 8 * 1024 * 1024 + 123
        try await F.with(imageSize: size) { fixture in
            let identity = try await fixture.identity()
            let url = fixture.url("/v2/dongle/binary/0/\(F.serial)/\(F.partNumber)")
            let start = FrameReader(signature: fixture.signature, image: fixture.image)
            let (status, reader) = try await fixture.withClient(identity: identity) { client in
                try await Self.download(client, url: url, reader: start)
            }
            #expect(status == .ok)
            let blockSize = TMSSimulatorChoices.binaryBlockSize
            #expect(reader.ended && reader.pending.readableBytes == 0 && reader.imageOffset == size)
            #expect(reader.blocks == (size + blockSize - 1) / blockSize)
            #expect(reader.total == 2 + fixture.signature.count + size + 2 * reader.blocks + 2)
            #expect(reader.matches)
        }
    }
}
