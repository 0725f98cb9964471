import Foundation
import Testing

/// Issue 40 items 1–2: both online-PIN flows bring the PIN KSN and the enciphered PIN block to the payment, in the
/// current dialect's layouts (spec §5.2 0x5512, 0x5171), under the key slot `pay --pin-key-slot` names.
struct OnlinePINEndToEndTests {
    static func pay(_ arguments: String) async throws -> (UCubeRun, [String: Any]) {
        let sandbox = try UCubeSandbox()
        sandbox.environment["UCUBE_SIM_TIME_SCALE"] = "0.01"
        let run = try await sandbox.run("--device sim --json pay 10 " + arguments)
        let context = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:]
        return (run, context)
    }

    @Test(arguments: ["mc-online-pin", "mc-contactless-online-pin"])
    func bothFlowsCarryThePINKSNAndBlock(card: String) async throws {
        let (run, context) = try await Self.pay("--card \(card) --pin-key-slot 0x41")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(context["status"] as? String == "APPROVED")
        #expect((context["pinKSN"] as? String)?.count == 20, "\(context)")
        // Ciphertext only (spec §12.3): 8 bytes, never the clear block.
        let block = try #require(context["onlinePINBlock"] as? String, "\(context.keys.sorted())")
        #expect(block.count == 16 && block != "041234FFFFFFFFFF")
    }

    @Test(arguments: ["0x54", "0x3F", "0", "21", "slot"])
    func aKeySlotOutOfRangeIsAUsageError(slot: String) async throws {
        let (run, _) = try await Self.pay("--card mc-online-pin --pin-key-slot \(slot)")
        #expect(run.status == 64, "\(slot): \(run.stderr)")
    }
}
