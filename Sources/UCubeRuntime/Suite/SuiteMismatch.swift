/// One field that differs.
package struct SuiteMismatch: Equatable {
    package let field: String
    package let expected: String
    package let got: String

    package init(field: String, expected: String, got: String) {
        self.field = field
        self.expected = expected
        self.got = got
    }
}
