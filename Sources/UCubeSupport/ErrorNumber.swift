#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An errno as the C library words it ("No space left on device"): the one call to strerror.
package enum ErrorNumber {
    package static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
