import Foundation
import Testing
import UCubeSupport

/// `PathText.directory(of:)` replaces Foundation's `NSString.deletingLastPathComponent` on the start-up path: it must
/// give what Foundation gives, for the shapes of path ucube builds and the odd ones a variable can hold.
struct PathTextTests {
    @Test(arguments: [
        "/run/user/1000/ucube/session-sim", "/run/user/1000/ucube/control-tcp%3A%2F%2Fh%3A1.sock", "relative/dir/file",
        "file", "", "/", "/file", "//file", "/a//b", "/a/b/", "/a/b//", "./x", "../x/y", "/ü/é/ñ",
    ])
    func directoryIsWhatFoundationSays(_ path: String) {
        #expect(PathText.directory(of: path) == (path as NSString).deletingLastPathComponent)
    }

    /// A relative name with a trailing slash is a bare name (Foundation's `deletingLastPathComponent` traps on it in
    /// swift-corelibs-foundation 6, so it cannot be the oracle here).
    @Test func aBareNameWithATrailingSlashHasNoDirectory() {
        #expect(PathText.directory(of: "a/") == "")
        #expect(PathText.directory(of: "a//") == "")
    }
}
