import UCubeProtocol

/// TLV data shown as an indented, named tree (sensitive values masked by the tag dictionary's formatter).
enum TLVDisplay {
    /// Lines for `bytes` if they parse as TLV, else nil.
    static func lines(_ bytes: [UInt8], context: TagContext) -> [String]? {
        guard !bytes.isEmpty, let nodes = try? TLVParser.parse(bytes, rules: .terminal) else { return nil }
        return TagValueFormatter.describe(nodes, context: context, indent: 0)
    }
}
