#!/usr/bin/env bash
# Keeps docs/architecture.md's claims about output and masking true, as check-doc-citations.sh keeps protocol.md's
# section numbers: what "Nothing sensitive leaks" and "Standard streams" say about the code is checked in the code.
#   1. One door: nothing in Sources writes to fd 1 or fd 2 but Sources/UCubeRuntime/Output/Console.swift (readline's own
#      terminal handling aside): no write(2)/StandardStream.write to STDOUT_FILENO or STDERR_FILENO, no
#      FileHandle.standardOutput/standardError, no C stdio writer, no Swift.print (an unqualified `print` outside
#      UCubeCLI is Swift's, to stdout).
#   2. The door masks: each of Console's writers passes its bytes through LogScrubber.scrub.
#   3. Every code name those two paragraphs give in backticks (`Console.err`, `Masking.hex`, …) exists in Sources.
#   4. Files: nothing in Sources opens or writes a file but the writers listed below. A masked writer passes what it
#      writes through the masker (Masking.redactCardData, LogScrubber.scrub, Masking.maskingCardData for frames); the
#      others are named with why they need none (no text that can hold card data, or bytes a masked writer gave).
#   5. The network door: every body `ucube serve` writes to a connection (UCubeCLI) is bytes from Console.served
#      (ServedBytes, which only Console.swift can make), which passes LogScrubber.scrub(JSON).
#   6. The link session's rules are UCubeLink's (docs/architecture.md, protocol.md §8.6, §8.7): the CLI and its
#      runtime (UCubeRuntime) name none of them (LinkOpening, LinkMemo, a LinkStart or SessionRecord they build, the
#      client's lostTrack or commandsSent, sendConfirmingIdle, verifySecureSession), and build no transport by hand
#      (InMemoryTransport.pair, ChannelTransport, BLETransport.connect, RFCOMMTransport.connect): TransportFactory
#      opens every address.
# Prints what is wrong and exits 1; prints a summary and exits 0.
#   Scripts/check-architecture.sh
set -euo pipefail
cd "$(dirname "$0")/.."

doc=docs/architecture.md
door=Sources/UCubeRuntime/Output/Console.swift
status=0

# 1. Writers to the standard streams, outside the door.
writers='(STDOUT_FILENO|STDERR_FILENO)\)|to: *(STDOUT_FILENO|STDERR_FILENO)|FileHandle\.standard(Output|Error)|\b(fputs|fwrite|fprintf|printf|puts|putchar|putc|vprintf|perror)\(|Swift\.print\(|\bdebugPrint\(|\bdump\('
if found=$(grep -rnE "$writers" Sources --include='*.swift' | grep -v "^$door:" | grep -vE '^[^:]+:[0-9]+:\s*//' \
    | grep -vE 'isatty\((STDOUT|STDERR)_FILENO\)|ioctl\((STDOUT|STDERR)_FILENO' ); then
    echo "Writes to stdout or stderr outside $door (send them through Console.out / Console.err):"
    echo "$found"
    status=1
fi
# Swift's own print, outside the executable's module (where `print` is Console's).
if found=$(grep -rnE '(^|[^.A-Za-z_])print\(' Sources --include='*.swift' | grep -v '^Sources/UCubeCLI/' \
    | grep -vE '^[^:]+:[0-9]+:\s*//' | grep -vE 'func print\('); then
    echo "print( outside UCubeCLI is Swift.print, straight to stdout:"
    echo "$found"
    status=1
fi

# 2. The door masks: every write to fd 1 and 2 in Console.swift goes through LogScrubber.scrub.
if found=$(grep -nE 'StandardStream\.write\(' "$door" | grep -vE 'LogScrubber\.scrub(JSON)?\('); then
    echo "$door writes without LogScrubber.scrub:"
    echo "$found"
    status=1
fi

# 3. The names the two paragraphs give exist.
section=$(awk '/^- \*\*Nothing sensitive leaks\.\*\*/ { on = 1 } on && /^- \*\*No link followed/ { on = 0 }
               /^\*\*Standard streams\.\*\*/ { on = 1 } on && /^\*\*Files\*\*/ { on = 0 } on' "$doc")
[ -n "$section" ] || { echo "$doc: the 'Nothing sensitive leaks' and 'Standard streams' paragraphs are missing"; exit 1; }
names=$(grep -oE '`[A-Z][A-Za-z]+(\.[a-z][A-Za-z]+)?`' <<<"$section" | tr -d '`' | sort -u)
checked=0
for name in $names; do
    type=${name%%.*}
    member=${name#*.}
    if [ "$member" = "$name" ] && [ -d "Sources/$name" ]; then  # a module
        checked=$((checked + 1))
        continue
    fi
    grep -rqE "(enum|struct|class|actor|protocol|typealias|extension) $type\b" Sources Tests --include='*.swift' || {
        echo "$doc names \`$name\`, but no type $type is declared in Sources or Tests"
        status=1
        continue
    }
    if [ "$member" != "$name" ]; then
        grep -rqE "(func|var|let|case) $member\b" Sources --include='*.swift' || {
            echo "$doc names \`$name\`, but nothing called $member is declared in Sources"
            status=1
            continue
        }
    fi
    checked=$((checked + 1))
done

# 4. File writers.
masked_writers=(
    Sources/UCubeRuntime/Fleet/FleetRun.swift         # --junit reports
    Sources/UCubeRuntime/Fleet/FleetRunFile.swift     # the fleet run file
    Sources/UCubeRuntime/Environment.swift            # receipts, test reports (--output, --junit)
    Sources/UCubeRuntime/Link/Recorder.swift           # recordings (frames by Recording.line, the command line)
    Sources/UCubeCLI/Shell/LineInput.swift            # the shell's history
    Sources/UCubeHostSimulator/HostLogEntry.swift     # the host simulator's JSON Lines log
    Sources/UCubeLog/LogBundle.swift                  # the send-logs bundle
    Sources/UCubePayment/PaymentJournal.swift         # the journal
)
unmasked_writers=(
    Sources/UCubeHostSimulator/HostSimulator.swift    # opens the host log; its lines are HostLogEntry.line, masked
    Sources/UCubeLog/LogFile.swift                    # messages.log: lines scrubbed by LogLine/LogScrubber first
    Sources/UCubeLink/AppendOnlyFile.swift            # the primitive the journal and the run file append through
    Sources/UCubeLink/PrivateFile.swift               # the primitive receipts, reports and recordings go through
    Sources/UCubeLink/NIOTransports.swift             # a serial device (/dev/tty…), not a file
    Sources/UCubeRuntime/Files/DeviceLock.swift       # a lock file holding a pid
    Sources/UCubeRuntime/Files/JournalLock.swift      # a lock file
    Sources/UCubeRuntime/Files/SessionFile.swift      # a session record: device, session, sequence numbers
    Sources/UCubeRuntime/Files/RememberedDevices.swift  # devices remembered by connect: names and addresses
    Sources/UCubeRuntime/Serve/ServeTokens.swift      # serve-tokens: SHA-256 hashes of paired tokens, names, times
    Sources/UCubeCLI/Commands/Simulate.swift          # the simulator's --devices-file: addresses
    Sources/UCubeSimulator/DeviceState.swift          # the simulated terminal's state
    Sources/UCubeSimulator/SimulatedFirmware.swift    # firmware images and signatures (binary)
    Sources/UCubeTMS/Client/FileIO.swift              # the primitive for TMS packages and identities
    Sources/UCubeTMS/Client/TMSClient.swift           # a downloaded package (binary)
    Sources/UCubeTMS/Client/TMSIdentityStore.swift    # a PKCS #12 identity
    Sources/UCubeTMSSimulator/TMSCertificateAuthority.swift  # certificates and keys
    Sources/UCubeTMSSimulator/TMSSimulator.swift      # an uploaded log bundle, scrubbed by the client that sent it
)
file_writes='write\(to:|FileHandle\(forWriting|FileHandle\(forUpdating|\.createFile\(|\bfopen\(|\bopen\([^)]*O_(WRONLY|RDWR|CREAT|APPEND)|AppendOnlyFile\(|PrivateFile\.(write|open)\(|FileIO\.writeAtomically\(|\b(append|write)_history\(|\bpwrite\(|\.write\(contentsOf'
listed=" ${masked_writers[*]} ${unmasked_writers[*]} "
writer_files=0
while IFS= read -r file; do
    writer_files=$((writer_files + 1))
    if [[ "$listed" != *" $file "* ]]; then
        echo "$file writes a file but is not one of the masked writers (route it through Masking.redactCardData and"
        echo "  list it in masked_writers in $0, or list it in unmasked_writers with why it needs no masking):"
        grep -nE "$file_writes" "$file" | grep -vE '^[0-9]+:\s*//' | sed 's/^/    /'
        status=1
    fi
done < <(grep -rlE "$file_writes" Sources --include='*.swift' | while read -r f; do
    grep -nE "$file_writes" "$f" | grep -qvE '^[0-9]+:\s*//' && echo "$f"; done | sort)
for file in "${masked_writers[@]}"; do
    grep -qE 'Masking\.redactCardData\(|LogScrubber\.scrub(JSON)?\(|Masking\.maskingCardData\(' "$file" || {
        echo "$file is a masked writer but calls no masker (Masking.redactCardData, LogScrubber.scrub)"
        status=1
    }
done

# 5. The network door.
if found=$(grep -rnE '\.body\(' Sources/UCubeCLI --include='*.swift' | grep -vE '^[^:]+:[0-9]+:\s*//' \
    | grep -vE 'Console\.served\(|served\.bytes'); then
    echo "A connection's body is written from bytes that did not come from Console.served:"
    echo "$found"
    status=1
fi
if ! grep -A2 'static func served(' "$door" | grep -qE 'LogScrubber\.scrubJSON\(.*LogScrubber\.scrub\('; then
    echo "$door: Console.served does not pass LogScrubber.scrubJSON / LogScrubber.scrub"
    status=1
fi

# 6. No session rule and no hand-built transport in the CLI.
session_rules='\bLinkOpening\b|\bLinkMemo\b|\bLinkStart\(|\bSessionRecord\(|\.lostTrack\b|\.commandsSent\b|sendConfirmingIdle|verifySecureSession|InMemoryTransport\.pair|ChannelTransport\.|BLETransport\.connect|RFCOMMTransport\.connect'
if found=$(grep -rnE "$session_rules" Sources/UCubeCLI Sources/UCubeRuntime --include='*.swift' \
    | grep -vE '^[^:]+:[0-9]+:\s*//'); then
    echo "The CLI or its runtime applies a link session rule or builds a transport (LinkSession and TransportFactory,"
    echo "UCubeLink, do):"
    echo "$found"
    status=1
fi

if [ $status -eq 0 ]; then
    echo "check-architecture: one door ($door), masked at the exit; $checked names in $doc found in Sources;" \
        "$writer_files files that write files, each a listed writer (${#masked_writers[@]} masked);" \
        "no link session rule and no hand-built transport in UCubeCLI or UCubeRuntime."
fi
exit $status
