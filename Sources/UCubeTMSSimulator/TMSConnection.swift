import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTPS connection: reads requests (bodies capped per endpoint), asks the simulator for the answer and writes
/// it; the binary download is streamed from the image file with the channel's backpressure. Every failure — a
/// refused handshake, malformed HTTP, a client that goes away — ends only this connection.
struct TMSConnection: Sendable {
    let simulator: TMSSimulator

    typealias Channel = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    private struct Close: Error {}

    func serve(_ connection: Channel) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var parts = inbound.makeAsyncIterator()
                while let part = try await parts.next() {
                    guard case .head(let head) = part else { throw Close() }
                    let route = TMSRoute.parse(
                        method: head.method.rawValue, uri: head.uri, deviceID: head.headers.first(name: "x-device-id"),
                        idType: head.headers.first(name: "x-id-type"))
                    let limit = (try? route.get())?.bodyLimit ?? TMSSimulatorChoices.maximumSmallBody
                    guard let body = try await HTTPExchange.readBody(head: head, limit: limit, from: &parts) else {
                        try await write(
                            .error(.payloadTooLarge, "the body exceeds \(limit) bytes"), version: head.version,
                            keepAlive: false, outbound)
                        return
                    }
                    let peer = try await connection.channel.nioSSL_peerCertificate().get()?.toDERBytes()
                    let answer = await simulator.answer(route, body: body, peerCertificate: peer)
                    if let delay = answer.delay {
                        // A client that gave up (and closed) ends this connection early.
                        try await HTTPExchange.wait(delay, whileOpen: connection.channel)
                        guard connection.channel.isActive else { return }
                    }
                    let keepAlive = head.isKeepAlive
                    guard try await write(answer.response, version: head.version, keepAlive: keepAlive, outbound),
                        keepAlive
                    else { return }
                }
            }
        } catch {
            // Handshake refused, malformed HTTP (NIO answered 400), reset, cancelled by stop(): close this one only.
        }
    }

    /// Writes `response`; `false` when the connection must close afterwards.
    @discardableResult
    private func write(
        _ response: TMSResponse, version: HTTPVersion, keepAlive: Bool,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        switch response {
        case .full(let status, let type, let bytes):
            try await HTTPExchange.writeFull(
                status, contentType: type, bytes, version: version, keepAlive: keepAlive, outbound)
            return keepAlive
        case .truncated(let status, let type, let bytes):
            try await outbound.write(.head(HTTPExchange.head(status, type, bytes.count, version, false)))
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: bytes.prefix(bytes.count / 2)))))
            return false
        case .drop:
            return false
        case .binary(let signature, let path, let dropAfterBlocks, let corruptOffset, let zipName?):
            let zip: [UInt8]
            do {
                zip = try await TMSZipAnswer.build(
                    signature: signature, imagePath: path, name: zipName, corruptOffset: corruptOffset)
            } catch {
                return try await write(
                    .error(.internalServerError, "cannot build the zip answer: \(error)"), version: version,
                    keepAlive: false, outbound)
            }
            let answer: TMSResponse =
                dropAfterBlocks == nil
                ? .full(.ok, TMSZipAnswer.contentType, zip) : .truncated(.ok, TMSZipAnswer.contentType, zip)
            return try await write(answer, version: version, keepAlive: keepAlive, outbound)
        case .binary(let signature, let path, let dropAfterBlocks, let corruptOffset, nil):
            return try await streamBinary(
                signature: signature, imagePath: path, dropAfterBlocks: dropAfterBlocks, corruptOffset: corruptOffset,
                version: version, keepAlive: keepAlive, outbound)
        }
    }

    /// §10.5: `LL LL` + signature, then `LL LL` + block (TMSSimulatorChoices.binaryBlockSize) …, then `00 00`.
    /// Reads a few blocks at a time on the thread pool; each write waits for the channel to be writable, so memory
    /// stays flat whatever the image size.
    private func streamBinary(
        signature: [UInt8], imagePath: String, dropAfterBlocks: Int?, corruptOffset: Int?, version: HTTPVersion,
        keepAlive: Bool,
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Bool {
        let image: ImageFile
        do {
            image = try await ImageFile.open(imagePath)
        } catch {
            _ = try await write(
                .error(.internalServerError, "cannot read the image: \(error)"), version: version, keepAlive: false,
                outbound)
            return false
        }
        let blockSize = TMSSimulatorChoices.binaryBlockSize
        let blockCount = (image.size + blockSize - 1) / blockSize
        let length = 2 + signature.count + image.size + 2 * blockCount + 2
        do {
            try await outbound.write(
                .head(HTTPExchange.head(.ok, "application/octet-stream", length, version, keepAlive)))
            var buffer = ByteBuffer()
            buffer.writeInteger(UInt16(signature.count))
            buffer.writeBytes(signature)
            try await outbound.write(.body(.byteBuffer(buffer)))
            var offset = 0
            var sent = 0
            let blocksPerRead = 16
            while offset < image.size {
                var bytes = try await image.read(
                    at: offset, count: min(blockSize * blocksPerRead, image.size - offset))
                if let corruptOffset, (offset..<offset + bytes.count).contains(corruptOffset) {
                    bytes[corruptOffset - offset] = ~bytes[corruptOffset - offset]
                }
                guard !bytes.isEmpty else { throw Close() }  // the file shrank: the announced length is wrong
                var framed = ByteBuffer()
                framed.reserveCapacity(bytes.count + 2 * blocksPerRead)
                var start = 0
                while start < bytes.count {
                    if let dropAfterBlocks, sent == dropAfterBlocks {
                        try await outbound.write(.body(.byteBuffer(framed)))
                        throw Close()
                    }
                    let end = min(start + blockSize, bytes.count)
                    framed.writeInteger(UInt16(end - start))
                    framed.writeBytes(bytes[start..<end])
                    start = end
                    sent += 1
                }
                try await outbound.write(.body(.byteBuffer(framed)))
                offset += bytes.count
            }
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: [0, 0]))))
            try await outbound.write(.end(nil))
        } catch {
            await image.close()
            throw error
        }
        await image.close()
        return keepAlive
    }
}
