import Foundation
import UCubeFuzzTargets

#if UCUBE_LIBFUZZER
import CFuzzDriver
#endif

/// The fuzz driver (Fuzz/README.md).
///
/// Built by Scripts/fuzz.sh with `-sanitize=fuzzer,address -DUCUBE_LIBFUZZER`, it is libFuzzer, fuzzing the target
/// named by $UCUBE_FUZZ_TARGET with libFuzzer's own command line. In an ordinary build it replays inputs and writes
/// seeds:
///
///     UCubeFuzz TARGET FILE...        runs each file through TARGET (a crasher reproduces here)
///     UCubeFuzz --seeds TARGET DIR    writes TARGET's generated seeds into DIR
///     UCubeFuzz --list                the targets
@main
struct UCubeFuzz {
    nonisolated(unsafe) static var target = FuzzTarget.frames

    static func main() async {
        #if UCUBE_LIBFUZZER
        let name = ProcessInfo.processInfo.environment["UCUBE_FUZZ_TARGET"] ?? ""
        guard let chosen = FuzzTarget(rawValue: name) else {
            fail("set UCUBE_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))")
        }
        target = chosen
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                UCubeFuzz.target.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
                return 0
            })
        #else
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "--list":
            for target in FuzzTarget.allCases { print(target.rawValue) }
        case "--seeds":
            guard arguments.count == 3, let target = FuzzTarget(rawValue: arguments[1]) else { usage() }
            let directory = arguments[2]
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (index, seed) in await target.seeds().enumerated() {
                let path = "\(directory)/seed-\(index)"
                guard FileManager.default.createFile(atPath: path, contents: Data(seed)) else {
                    fail("cannot write \(path)")
                }
                print(path)
            }
        case let name?:
            guard let target = FuzzTarget(rawValue: name), arguments.count > 1 else { usage() }
            for path in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
                target.run([UInt8](data))
                print("\(path): ok")
            }
        case nil:
            usage()
        }
        #endif
    }

    static func usage() -> Never {
        fail("usage: UCubeFuzz TARGET FILE... | --seeds TARGET DIR | --list")
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("UCubeFuzz: \(message)\n".utf8))
        exit(64)
    }
}
