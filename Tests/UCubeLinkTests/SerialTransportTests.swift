import Foundation
import Testing
import UCubeProtocol
import UCubeSimulator
import UCubeSupport

@testable import UCubeLink

#if canImport(Glibc)
import Glibc
#endif

/// The serial transport over a pseudo-terminal: the simulator sits on the master side, the client opens the slave
/// device file as it would open /dev/rfcomm0 (PLATFORM.md: openpty is byte-exact across the pair).
@Suite struct SerialTransportTests {
    @Test func getInfoOverAPseudoTerminal() async throws {
        var master: Int32 = -1, slave: Int32 = -1
        #expect(openpty(&master, &slave, nil, nil, nil) == 0)
        let path = String(cString: ttyname(slave))
        // Raw mode on the master side too, so no byte is translated on the way back.
        var tio = termios()
        tcgetattr(master, &tio)
        cfmakeraw(&tio)
        tcsetattr(master, TCSANOW, &tio)

        let simulator = try TerminalSimulator(configuration: SimulatorConfiguration(timeScale: 0.01))
        let input = ByteQueue()
        let masterFD = master
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(masterFD, &buffer, buffer.count)
                if n <= 0 { break }
                input.send(Array(buffer[..<n]))
            }
            input.finish()
        }
        reader.start()
        let serving = Task {
            _ = await simulator.serve(
                input: input,
                output: { bytes in
                    _ = bytes.withUnsafeBytes { write(masterFD, $0.baseAddress, $0.count) }
                })
        }

        let transport = try await ChannelTransport.openDevice(path: path)
        #expect(transport.name == "serial://\(path)")
        let client = RPCClient(transport: transport, defaultTimeout: .seconds(30))
        let reply = try await client.send(GetInfo(tags: [0xC3, 0xC4]))
        #expect(reply.response?.state == .ready)
        #expect(reply.response?.serialNumber != nil)
        // A second exchange on the same link.
        #expect(try await client.send(GetInfo(tags: [0xD1])).response?.firmwareVersion != nil)
        await client.close()
        close(slave)
        close(master)
        serving.cancel()
    }

    @Test func missingDeviceIsAConnectError() async throws {
        await #expect(throws: LinkError(.connectFailed, "")) {
            try await ChannelTransport.openDevice(path: "/dev/does-not-exist-ucube")
        }
    }
}
