import Foundation
import Testing
import UCubeRuntime

@testable import UCubeCLI

/// The committed man page (`Scripts/generate-docs.sh`): every character of the help text survives, as written and
/// as `man` renders it, and ENVIRONMENT, FILES and EXIT STATUS come from the code's tables (issue 12: `1…255` read
/// `1255`, `€` and `§` were gone, and the page had none of those sections).
@Suite struct ManualPageTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url
    }()

    static func page() throws -> String {
        try String(contentsOf: root.appendingPathComponent("man/ucube.1"), encoding: .utf8)
    }

    /// Every string of `ucube --experimental-dump-help`: abstracts, discussions, option help.
    static func helpTexts() async throws -> [String] {
        let run = try await UCubeSandbox().run(["--experimental-dump-help"])
        #expect(run.status == 0, "\(run.stderr)")
        var texts: [String] = []
        func collect(_ value: Any) {
            switch value {
            case let s as String: texts.append(s)
            case let a as [Any]: a.forEach(collect)
            case let d as [String: Any]: d.values.forEach(collect)
            default: break
            }
        }
        collect(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)))
        return texts
    }

    /// The runs of non-ASCII characters in `text`, with the ASCII letters and digits around them (`1…255`, `§10`,
    /// `€12`): no escaping touches these, so they must appear as they are.
    static func nonASCIITokens(_ text: String) -> Set<String> {
        var tokens = Set<String>()
        var current = ""
        func flush() {
            if current.unicodeScalars.contains(where: { !$0.isASCII }) { tokens.insert(current) }
            current = ""
        }
        for scalar in text.unicodeScalars {
            if !scalar.isASCII || (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                current.unicodeScalars.append(scalar)
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }

    @Test func theIssuesCharactersAreInThePage() throws {
        let page = try Self.page()
        for text in ["1…255", "€12.50", "§3.1", "→"] {
            #expect(page.contains(text), "\(text)")
        }
    }

    @Test func everyNonASCIIWordOfTheHelpIsInThePageAndRendered() async throws {
        let tokens = try await Self.helpTexts().reduce(into: Set<String>()) { $0.formUnion(Self.nonASCIITokens($1)) }
        #expect(tokens.contains("1…255"))
        let page = try Self.page()
        for token in tokens.sorted() {
            #expect(page.contains(token), "man/ucube.1 lacks \(token)")
        }
        let rendered = try await Self.render()
        for token in tokens.sorted() {
            #expect(rendered.contains(token), "`man -l man/ucube.1` does not show \(token)")
        }
        #expect(!rendered.contains("1255"))
    }

    @Test func sectionsComeFromTheCodesTables() throws {
        let page = try Self.page()
        let sections = page.split(separator: "\n").filter { $0.hasPrefix(".Sh ") }.map { String($0.dropFirst(4)) }
        #expect(
            sections == [
                "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES",
                "SEE ALSO",
            ])
        let exitStatus = try #require(page.components(separatedBy: ".Sh EXIT STATUS").last)
        for entry in ExitCodes.all {
            #expect(exitStatus.contains(".It Li \"\(entry.code)\""), "exit code \(entry.code)")
        }
        for variable in Environment.variables {
            #expect(page.contains(".It Ev \"\(variable.name)\""), "\(variable.name)")
        }
        for file in Environment.files {
            #expect(page.contains(".It Pa \"\(file.path)\""), "\(file.path)")
        }
    }

    /// Every `UCUBE_…` or `XDG_…` name the sources spell is documented in `Environment.variables`.
    @Test func everyVariableTheCodeReadsIsDocumented() throws {
        let documented = Set(Environment.variables.map(\.name))
        let sources = Self.root.appendingPathComponent("Sources")
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 50)
        var named = Set<String>()
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for piece in text.components(separatedBy: "\"").dropFirst() {
                let name = piece.prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
                if (name.hasPrefix("UCUBE_") || name.hasPrefix("XDG_")) && piece.dropFirst(name.count).first == nil {
                    named.insert(String(name))
                }
            }
        }
        #expect(named.contains("UCUBE_SIM_SEED"))
        #expect(
            named.subtracting(documented).isEmpty,
            "not in Environment.variables: \(named.subtracting(documented).sorted())")
    }

    /// `man -l man/ucube.1` in a UTF-8 locale, without hyphenation or justification, on one long line per paragraph.
    static func render() async throws -> String {
        try await blocking {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "man", "--no-hyphenation", "--no-justification", "-l", root.appendingPathComponent("man/ucube.1").path,
            ]
            var environment = ProcessInfo.processInfo.environment
            environment["LC_ALL"] = "C.UTF-8"
            environment["MANWIDTH"] = "1000"
            environment["MANPAGER"] = "cat"
            environment["PAGER"] = "cat"
            process.environment = environment
            let out = Pipe.cloexec(), err = Pipe.cloexec()
            process.standardOutput = out
            process.standardError = err
            try UCubeSandbox.start(process)
            let data = out.fileHandleForReading.readAllRetryingInterrupts()
            let errors = String(decoding: err.fileHandleForReading.readAllRetryingInterrupts(), as: UTF8.self)
            let status = process.waitForEnd().status
            guard status == 0 else {
                throw SandboxError(message: "man -l failed (\(status); install man-db): \(errors)")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
