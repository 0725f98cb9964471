import Testing
import UCubeProtocol

/// The simulated image header of `FirmwareImageChoices`: encode/parse round trip and hostile headers.
@Suite struct FirmwareImageTests {
    static let header = FirmwareImageHeader(
        type: .svppFirmware, version: FirmwareVersion([6, 0, 1, 0]), payloadLength: 0x0102_0304)

    @Test func encodesTheDocumentedLayout() throws {
        #expect(
            Self.header.encoded()
                == [0x55, 0x43, 0x46, 0x57, 0x00, 6, 0, 1, 0, 0x01, 0x02, 0x03, 0x04])
        #expect(try FirmwareImageHeader(parsing: Self.header.encoded() + [0xAA, 0xBB]) == Self.header)
        #expect(Self.header.imageSize == 13 + 0x0102_0304)
    }

    @Test(arguments: FirmwareItemType.allCases)
    func everyTypeRoundTrips(type: FirmwareItemType) throws {
        let header = FirmwareImageHeader(type: type, version: FirmwareVersion([1, 2, 3, 4]), payloadLength: 7)
        #expect(try FirmwareImageHeader(parsing: header.encoded()) == header)
    }

    static func code(_ bytes: [UInt8]) -> FirmwareImageError.Code? {
        do {
            _ = try FirmwareImageHeader(parsing: bytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func hostileHeadersAreTypedErrors() {
        var bytes = Self.header.encoded()
        #expect(Self.code([]) == .truncated)
        #expect(Self.code(Array(bytes.prefix(12))) == .truncated)
        bytes[0] = 0x00
        #expect(Self.code(bytes) == .badMagic)
        bytes = Self.header.encoded()
        bytes[4] = 0x07  // not a §10.4 type
        #expect(Self.code(bytes) == .unknownType)
        bytes = Self.header.encoded()
        bytes[9] = 0xFF  // 4 GB payload
        #expect(Self.code(bytes) == .badLength)
    }

    @Test func checkSizeWantsExactlyHeaderPlusPayload() throws {
        let header = FirmwareImageHeader(type: .iccConfig, version: FirmwareVersion([1, 0, 0, 6]), payloadLength: 100)
        try header.checkSize(113)
        #expect(throws: FirmwareImageError(.truncated, "")) { try header.checkSize(112) }
        #expect(throws: FirmwareImageError(.badLength, "")) { try header.checkSize(114) }
    }

    @Test func refusalStatusesAreDistinctAndNamed() {
        let statuses: [Status] = [.imageSignatureInvalid, .imageMalformed, .imageNotNewer]
        #expect(Set(statuses).count == 3)
        #expect(
            statuses.compactMap { $0.info?.name } == ["IMAGE_SIGNATURE_INVALID", "IMAGE_MALFORMED", "IMAGE_NOT_NEWER"])
        #expect(StatusTable.lookup("IMAGE_NOT_NEWER") == .imageNotNewer)
    }
}
