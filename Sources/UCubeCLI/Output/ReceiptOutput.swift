import ArgumentParser
import Foundation
import UCubeLink
import UCubePayment
import UCubeRuntime

/// `--receipt` and `--receipt-file FILE` (`pay`, `history show`): the receipt on stdout, in a file, or both; text 40
/// columns wide, or JSON with `--json`.
struct ReceiptOptions: ParsableArguments {
    @Flag(help: "Print the payment's receipt: 40 columns of text, or a `receipt` object with --json.")
    var receipt = false

    @Option(
        help: ArgumentHelp(
            "Write the receipt to FILE (text, or JSON with --json); its directory must exist.", valueName: "file"))
    var receiptFile: String?

    /// Checked before any work: a payment is not taken when its receipt could not be kept.
    func checkFile() throws(CLIFailure) {
        if let receiptFile { try Environment.checkOutputFile(receiptFile, option: "--receipt-file") }
    }

    /// Writes the receipt file, when asked for.
    func write(_ receipt: Receipt, json: Bool) throws {
        guard let receiptFile else { return }
        let text =
            json
            ? try JSONOutput.encode(receipt, versioned: true) + "\n" : receipt.lines().joined(separator: "\n") + "\n"
        try Environment.writeOutput(text, to: receiptFile, what: "the receipt to")
    }
}
