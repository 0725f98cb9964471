import UCubeSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TMS client identity per terminal serial, at `<directory>/<serial>.p12` (directory 0700, files 0600, written
/// atomically). The CLI uses `$XDG_CONFIG_HOME/ucube/tms`. Small synchronous file operations.
package struct TMSIdentityStore: Sendable {
    package let directory: String

    package init(directory: String) { self.directory = directory }

    /// The file for `serial` (decimal digits only, so it cannot name another path).
    package func path(serial: String) throws(TMSError) -> String {
        guard (1...20).contains(serial.utf8.count), serial.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw TMSError(.configuration, "terminal serial number \"\(serial.prefix(40))\" is not decimal digits")
        }
        return directory + "/" + serial + "." + TMSChoices.identityFileExtension
    }

    package func isRegistered(serial: String) -> Bool {
        guard let p = try? path(serial: serial) else { return false }
        return access(p, F_OK) == 0
    }

    /// The stored identity, or nil when there is none. Throws `.file` when it cannot be read, `.malformedReply` when the
    /// file is not a valid keystore.
    package func load(serial: String) throws(TMSError) -> TMSIdentity? {
        let p = try path(serial: serial)
        guard access(p, F_OK) == 0 else { return nil }
        let bytes = try FileIO.readSmallFile(p, limit: TMSChoices.maximumIdentityReply)
        return try TMSIdentity(pkcs12: bytes, source: p)
    }

    /// The stored identity; `.notRegistered` when there is none.
    package func identity(serial: String) throws(TMSError) -> TMSIdentity {
        guard let id = try load(serial: serial) else {
            throw TMSError(
                .notRegistered, "terminal \(serial) is not registered with the TMS (no \(try path(serial: serial)))",
                hint: "run `ucube mdm-register` first")
        }
        return id
    }

    /// Stores (replaces) the identity of `serial`.
    package func save(_ identity: TMSIdentity, serial: String) throws(TMSError) {
        let p = try path(serial: serial)
        try FileIO.ensurePrivateDirectory(directory)
        try FileIO.writeAtomically(identity.pkcs12, to: p, mode: TMSChoices.identityFileMode)
    }

    /// Deletes the identity of `serial`; returns whether there was one.
    @discardableResult
    package func remove(serial: String) throws(TMSError) -> Bool {
        let p = try path(serial: serial)
        if unlink(p) == 0 { return true }
        let e = errno
        if e == ENOENT { return false }
        throw TMSError(.file, "cannot delete \(p): \(ErrorNumber.text(e))")
    }
}
