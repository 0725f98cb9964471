import Foundation
import Testing

/// Runs the built `ucube` binary as a user would, with its own state directories, and captures what it prints.
/// The binary is `.build/debug/ucube` beside this package (`swift test` builds it), or `$UCUBE_BINARY`.
struct UCubeRun {
    let status: Int32
    let stdout: String
    let stderr: String
}

final class UCubeSandbox: @unchecked Sendable {
    let directory: URL
    var environment: [String: String]

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["UCUBE_BINARY"] { return URL(fileURLWithPath: path) }
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent(".build/debug/ucube")
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ucube-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["UCUBE_SIM_HOME"] = directory.appendingPathComponent("sim").path
        env["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
        env.removeValue(forKey: "UCUBE_DEVICE")
        environment = env
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Runs `ucube ARGS…` to completion (at most `timeout`), with `stdin` closed.
    func run(_ arguments: [String], timeout: Duration = .seconds(60)) throws -> UCubeRun {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes while the process runs, so a large output cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let seconds = Double(timeout.components.seconds)
        if group.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            Issue.record("ucube \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        process.waitUntilExit()
        return UCubeRun(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    func run(_ line: String, timeout: Duration = .seconds(60)) throws -> UCubeRun {
        try run(line.split(separator: " ").map(String.init), timeout: timeout)
    }

    /// Starts `ucube ARGS…` in the background; the caller terminates it.
    func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out)
    }

    /// `ucube simulate --listen 127.0.0.1:0` in the background; returns it and the port it printed.
    func startSimulator() throws -> (Process, Int) {
        let (process, out) = try start(["simulate", "--listen", "127.0.0.1:0", "--state-dir", directory.appendingPathComponent("tcp-sim").path])
        var line = Data()
        let handle = out.fileHandleForReading
        while !line.contains(0x0A) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let portText = text.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines), let port = Int(portText) else {
            process.terminate()
            throw SandboxError(message: "simulator printed no port: \(text)")
        }
        return (process, port)
    }
}

struct SandboxError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
