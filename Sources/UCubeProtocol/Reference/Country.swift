/// One row of the ISO 3166-1 list (generated into `ISO3166Table` by `Scripts/generate-iso3166.py`).
package struct ISO3166Entry: Hashable, Sendable {
    /// Numeric code (250), as EMV 9F1A and 5F28 carry it in packed BCD.
    package let numeric: UInt16
    /// Alpha-2 code ("FR"), as in 5F55.
    package let alpha2: String
    /// Alpha-3 code ("FRA"), as in 5F56.
    package let alpha3: String
    /// English name ("France").
    package let name: String

    init(_ numeric: UInt16, _ alpha2: String, _ alpha3: String, _ name: String) {
        self.numeric = numeric
        self.alpha2 = alpha2
        self.alpha3 = alpha3
        self.name = name
    }

    private static let byNumeric: [UInt16: ISO3166Entry] = Dictionary(
        ISO3166Table.entries.map { ($0.numeric, $0) }, uniquingKeysWith: { first, _ in first })
    private static let byAlpha: [String: ISO3166Entry] = {
        var map: [String: ISO3166Entry] = [:]
        for entry in ISO3166Table.entries {
            map[entry.alpha2] = map[entry.alpha2] ?? entry
            map[entry.alpha3] = map[entry.alpha3] ?? entry
        }
        return map
    }()

    /// The country with this numeric code.
    package static func lookup(numeric: UInt16) -> ISO3166Entry? { byNumeric[numeric] }

    /// The country for an alpha-2 ("FR") or alpha-3 ("FRA") code, ignoring case.
    package static func lookup(alpha: String) -> ISO3166Entry? { byAlpha[alpha.uppercased()] }
}
