/// An error with a stable `code` and a `reason` for people (after swift-asn1's `ASN1Error`): equality and hashing
/// use the code only, so tests assert on codes and exit codes key on them while messages can improve.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    associatedtype Code: Hashable & Sendable
    var code: Code { get }
    var reason: String { get }
}

extension CodedError {
    public var description: String { reason }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
