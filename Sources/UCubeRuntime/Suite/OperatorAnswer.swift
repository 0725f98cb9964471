/// How a wait for the operator before a case ended (a real terminal, attended: "press Enter when ready").
package enum OperatorAnswer: Equatable, Sendable {
    /// Enter.
    case ready
    /// The input ended (Ctrl-D, a closed terminal) or Ctrl-C at the shell's prompt.
    case ended
    /// The timeout passed first.
    case timedOut
    /// The run was stopped: the case did not start.
    case stopped
}
