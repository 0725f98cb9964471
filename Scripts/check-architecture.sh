#!/usr/bin/env bash
# Keeps docs/architecture.md's claims about output and masking true, as check-doc-citations.sh keeps protocol.md's
# section numbers: what "Nothing sensitive leaks" and "Standard streams" say about the code is checked in the code.
#   1. One door: nothing in Sources writes to fd 1 or fd 2 but Sources/UCubeCLI/Output/Console.swift (readline's own
#      terminal handling aside): no write(2)/StandardStream.write to STDOUT_FILENO or STDERR_FILENO, no
#      FileHandle.standardOutput/standardError, no C stdio writer, no Swift.print (an unqualified `print` outside
#      UCubeCLI is Swift's, to stdout).
#   2. The door masks: each of Console's writers passes its bytes through LogScrubber.scrub.
#   3. Every code name those two paragraphs give in backticks (`Console.err`, `Masking.hex`, …) exists in Sources.
# Prints what is wrong and exits 1; prints a summary and exits 0.
#   Scripts/check-architecture.sh
set -euo pipefail
cd "$(dirname "$0")/.."

doc=docs/architecture.md
door=Sources/UCubeCLI/Output/Console.swift
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
    | grep -vE '^[^:]+:[0-9]+:\s*//'); then
    echo "print( outside UCubeCLI is Swift.print, straight to stdout:"
    echo "$found"
    status=1
fi

# 2. The door masks: every write to fd 1 and 2 in Console.swift goes through LogScrubber.scrub.
if found=$(grep -nE 'StandardStream\.write\(' "$door" | grep -v 'LogScrubber\.scrub('); then
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

if [ $status -eq 0 ]; then
    echo "check-architecture: one door ($door), masked at the exit; $checked names in $doc found in Sources."
fi
exit $status
