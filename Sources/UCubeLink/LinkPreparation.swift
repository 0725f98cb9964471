/// What a command needs from the terminal before its first command. The terminal outlives every ucube process, and a
/// process can die anywhere (killed, power lost, link dropped), leaving a long command pending, a secure session open
/// or the link session file stale; each command starts from whatever state the last one left.
package enum LinkPreparation: Equatable, Sendable {
    /// READY with nothing pending: CancelAll, then ExitSecureSession, every time (the SDKs' START_CANCEL_ALL and
    /// START_EXIT_SECURE_SESSION, spec §8.1). For commands that read or change the terminal outside a secure session
    /// (locale, updates, registration, logs; `info` is `.query`): GetInfo's answer is ciphered in SECURED state.
    case ready
    /// Continue the link session the last process kept (`rpc …`, the shell). Trusted only when that process closed
    /// the link cleanly; otherwise (it died, its file is missing or unreadable) the terminal is reset as for `.ready`
    /// first.
    case asRecorded
    /// A payment (`pay`, `test`): as `.asRecorded`, but nothing is sent here, whatever the record says. The payment's
    /// starting steps are the resynchronisation: the full sequence (CancelAll, ExitSecureSession, GetInfo) when the
    /// record is not clean, only what the clean record leaves unknown otherwise (spec §8.6). One sequence, no command
    /// sent twice.
    case payment
    /// READY with nothing pending, for a command whose first frame only reads and whose answer shows whether the
    /// terminal was (`info`'s GetInfo: ciphered in a secure session, refused while a command is pending). After a
    /// clean exit that kept no secure session, nothing is sent first: the record says nothing is pending and no session
    /// is open. If the answer says otherwise (another host used the terminal since), the command resynchronises and
    /// sends its read again, once (`LinkOpening.unverified`; spec §8.7). Otherwise as `.ready`.
    case query
}
