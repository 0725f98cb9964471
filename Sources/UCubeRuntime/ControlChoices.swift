/// The control socket's timing that the exit codes' table words (`ExitCodes.tryAgain`): `ucube cancel` and `ucube sim`
/// keep trying this long to hand their request over (a full queue, a holder starting or ending).
package enum ControlChoices {
    package static let reachBudget: Duration = .seconds(5)
}
