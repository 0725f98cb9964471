import ArgumentParser
import UCubePayment
import UCubeProtocol
import UCubeRuntime

/// `--readers` and `--card-timeout`: which readers wait for a card, and for how long (`pay`, `read-card`).
struct CardWaitOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Readers to enable, comma-separated: icc, nfc, msr (pay: default the terminal's own, from GetInfo: icc,nfc on a uCube Touch, msr,icc on a uCube, and nfc once its NFC module is ready; read-card: default icc,nfc).",
            valueName: "readers"),
        transform: { try Parse.names($0) as [CardReader] })
    var readers: [CardReader]?

    @Option(help: ArgumentHelp("Seconds to wait for a card, 1…255.", valueName: "seconds"))
    var cardTimeout: Int = PaymentRequest.defaultCardWaitTimeout
}
