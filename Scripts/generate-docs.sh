#!/usr/bin/env bash
# Generates man/ucube.1 and completions/ from the command definitions (Scripts/generate-manual.py over
# `ucube --experimental-dump-help`, and --generate-completion-script), so they never drift from the code, and
# Sources/UCubeCLI/Output/RootHelp.swift: `ucube help` split where the parser wraps it, which `ucube --help` wraps to the
# terminal's width without building the command tree (start-up cost).
#   Scripts/generate-docs.sh          regenerate and write them
#   Scripts/generate-docs.sh --check  regenerate into a temporary directory and fail if the committed ones differ
set -euo pipefail
cd "$(dirname "$0")/.."

# A fixed date keeps the output reproducible; bump it when the command line changes in a release.
DATE=2026-11-22

swift build --product ucube >/dev/null
bin=$(swift build --show-bin-path)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/man" "$out/completions"
"$bin/ucube" --experimental-dump-help >"$out/dump.json"
python3 Scripts/generate-manual.py --date "$DATE" "$out/dump.json" >"$out/man/ucube.1"
rm "$out/dump.json"
"$bin/ucube" --generate-completion-script bash >"$out/completions/ucube.bash"
"$bin/ucube" --generate-completion-script zsh >"$out/completions/_ucube"
"$bin/ucube" --generate-completion-script fish >"$out/completions/ucube.fish"
# `help` goes through the parser (the --help shortcut renders RootHelp itself), here too wide to wrap anything: the
# generator splits it where ArgumentParser wraps, and `ucube --help` wraps it again at the terminal's width.
COLUMNS=1000000 "$bin/ucube" help >"$out/root-help.txt"
python3 - "$out/root-help.txt" >"$out/RootHelp.swift" <<'PY'
# Splits `ucube help`, rendered too wide to wrap, into what ArgumentParser wraps (the overview, each element's
# abstract) and what it does not (labels, the usage line, section titles, the last line), as Swift for RootHelp.swift.
# The layout is ArgumentParser's HelpGenerator (1.8): a section is "TITLE:" and its elements, an element is its label
# indented 2 and its abstract from column 26 (or on the next line when the label reaches it), each further line of
# the abstract indented 26; sections are separated by an empty line, and the last line follows another.
import sys

LABEL_INDENT, LABEL_COLUMN = 2, 26
text = open(sys.argv[1], encoding="utf-8").read()


def fail(message):
    sys.exit(f"generate-docs.sh: RootHelp: {message}")


# `ucube help` puts the root's usage first (RootHelp.usageFirst), then the overview (which has paragraphs of its own),
# then the sections, of which OPTIONS: is the first.
if not text.startswith("USAGE: ") or not text.endswith("\n"):
    fail("`ucube help` does not start with USAGE:")
usage, _, rest = text[:-1].partition("\n\n")
if "\n" in usage:
    fail("the usage takes more than one line")
overview, options, rest = rest.partition("\n\nOPTIONS:\n")
if not overview.startswith("OVERVIEW: ") or not options:
    fail("no OVERVIEW: after the usage, or no OPTIONS: after it")
rest = "OPTIONS:\n" + rest

sections, footer = [], None
lines = rest.split("\n")
i = 0
while i < len(lines):
    line = lines[i]
    if line.endswith(":") and not line.startswith(" "):
        title, elements = line[:-1], []
        i += 1
        while i < len(lines) and lines[i]:
            line = lines[i]
            if line.startswith(" " * LABEL_COLUMN) and elements:
                elements[-1][1].append(line[LABEL_COLUMN:])
            elif line.startswith(" " * LABEL_INDENT) and line[LABEL_INDENT] != " ":
                if len(line) > LABEL_COLUMN and line[LABEL_COLUMN - 1] == " " and line[LABEL_COLUMN] != " ":
                    elements.append([line[LABEL_INDENT:LABEL_COLUMN].rstrip(), [line[LABEL_COLUMN:]]])
                else:
                    # The label reaches the abstract's column: the abstract starts on the next line (or is empty).
                    elements.append([line[LABEL_INDENT:], []])
            else:
                fail(f"a line that is neither a label nor an abstract (a discussion?): {line!r}")
            i += 1
        sections.append((title, [(label, "\n".join(abstract)) for label, abstract in elements]))
        i += 1  # the empty line after the section
    else:
        footer = "\n" + "\n".join(lines[i:])
        break
if not sections or footer is None:
    fail("no sections, or no last line")


# The parse is checked by laying the parts out again, unwrapped, as ArgumentParser does.
def element(label, abstract):
    padded = " " * LABEL_INDENT + label
    indented = "\n".join(" " * LABEL_COLUMN + line if line else line for line in abstract.split("\n"))
    if not abstract:
        tail = ""
    elif len(padded) < LABEL_COLUMN:
        tail = indented[len(padded):]
    else:
        tail = "\n" + indented
    return padded + tail + "\n"


again = (usage + "\n\n" + overview + "\n\n"
         + "\n".join(title + ":\n" + "".join(element(*e) for e in elements) for title, elements in sections)
         + footer + "\n")
if again != text:
    fail("the parts do not lay out as `ucube help` again: generate-docs.sh must learn the new layout")


def literal(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def raw_block(value):
    if '"""#' in value:
        fail('a text holds """#')
    return '#"""\n' + value + '\n"""#'


print("// Generated by Scripts/generate-docs.sh from `ucube help`, rendered too wide to wrap: do not edit. CI checks that")
print("// it is current.")
print()
print("/// The root help, split where ArgumentParser wraps it: `ucube --help` wraps it to the terminal's width")
print("/// (`RootHelp.rendered(columns:)`) without building the command tree.")
print("enum RootHelp {")
print("    /// `OVERVIEW:`, the abstract and the discussion, unwrapped.")
print("    static let overview = " + raw_block(overview))
print("    /// Never wrapped.")
print("    static let usage = " + raw_block(usage))
print("    static let sections: [Section] = [")
for title, elements in sections:
    print(f"        Section(")
    print(f"            title: {literal(title)},")
    print(f"            elements: [")
    for label, abstract in elements:
        print(f"                Element(")
        print(f"                    label: {literal(label)},")
        print(f"                    abstract: {literal(abstract)}),")
    print(f"            ]),")
print("    ]")
print("    /// After the sections, never wrapped.")
print("    static let footer = " + literal(footer))
print("}")
PY
# In the repository's format (.swift-format), as every Swift file is: the lint step in .ci/run checks it too.
swift format --configuration .swift-format -i "$out/RootHelp.swift"

if [ "${1:-}" = "--check" ]; then
    if ! diff -ru man "$out/man" || ! diff -ru completions "$out/completions" \
        || ! diff -u Sources/UCubeCLI/Output/RootHelp.swift "$out/RootHelp.swift"; then
        echo "man/, completions/ or RootHelp.swift are out of date: run Scripts/generate-docs.sh and commit the result" >&2
        exit 1
    fi
    echo "man/, completions/ and RootHelp.swift match the command definitions"
else
    rm -rf man completions
    cp -r "$out/man" man
    cp -r "$out/completions" completions
    cp "$out/RootHelp.swift" Sources/UCubeCLI/Output/RootHelp.swift
    echo "wrote man/ucube.1, completions/ and Sources/UCubeCLI/Output/RootHelp.swift"
fi
