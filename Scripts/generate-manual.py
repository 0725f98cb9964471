#!/usr/bin/env python3
"""Writes the ucube(1) man page (mdoc) from `ucube --experimental-dump-help`.

    ucube --experimental-dump-help | Scripts/generate-manual.py --date 2026-11-22 > man/ucube.1

swift-argument-parser's generate-manual drops every non-ASCII character (`1…255` became `1255`, `€` and `§`
vanished) and has no ENVIRONMENT, FILES or EXIT STATUS sections. This generator keeps the text as UTF-8 and takes
those three sections from the root command's discussion, where `ucube --help` prints them from the code's own tables
(`ExitCodes.all`, `Environment.variables`, `Environment.files`): a paragraph headed `Exit codes:`, `Environment:` or
`Files:` followed by `  NAME  meaning` rows. Every command's discussion ends with its EXAMPLES: and SEE ALSO:
paragraphs (`HelpExamples`), which become the command's Examples and See also, and for the root the page's EXAMPLES
and SEE ALSO sections. Nothing here lists a code, a variable, a path or an example by hand.
"""

import argparse
import datetime
import json
import re
import sys

# Root discussion paragraphs that become sections of their own, in the order of man-pages(7).
SECTIONS = {"Environment:": "ENVIRONMENT", "Files:": "FILES", "Exit codes:": "EXIT STATUS"}
SECTION_ORDER = ["ENVIRONMENT", "FILES", "EXIT STATUS"]
ROW = re.compile(r"^\s+(\S+)\s{2,}(.*)$")
# The paragraphs every command's discussion ends with (Sources/UCubeCLI/Output/HelpExamples.swift): examples, each a
# `  # what it does` line and a `  ucube …` line, separated by blank lines; then the related commands and documents.
EXAMPLES_HEAD, SEE_ALSO_HEAD = "EXAMPLES:", "SEE ALSO:"


def text(s):
    """Escapes prose for a roff text line: backslash, minus, quotes that roff would curl, a leading control char."""
    s = s.replace("\\", "\\e")
    s = s.replace("-", "\\-").replace("`", "\\(ga").replace("'", "\\(aq")
    if s.startswith(".") or s.startswith("\\(aq"):
        s = "\\&" + s
    return s


def arg(s):
    """One mdoc macro argument: quoted, so no word in it is taken for a macro."""
    s = s.replace("\\", "\\e").replace("`", "\\(ga").replace("'", "\\(aq").replace('"', '""')
    return '"' + s + '"'


def lines_of(prose):
    """Prose (paragraphs separated by blank lines, indented lines kept as lines) as roff lines."""
    out = []
    for i, paragraph in enumerate(p for p in re.split(r"\n\s*\n", prose.strip("\n")) if p.strip()):
        if i > 0:
            out.append(".Pp")
        rows = paragraph.split("\n")
        if len(rows) > 1 and all(r.startswith(" ") for r in rows[1:]):
            # A heading line and indented rows (a list of values): keep the rows as they are.
            out.append(text(rows[0]))
            out.append(".Bd -literal -offset indent")
            out.extend(text(r.strip()) for r in rows[1:])
            out.append(".Ed")
        else:
            out.extend(text(r.strip()) for r in rows if r.strip())
    return out


def literal(s):
    """A command line as one quoted mdoc argument, every character as typed (`\\-` keeps `--device` copyable)."""
    s = s.replace("\\", "\\e").replace("-", "\\-").replace("`", "\\(ga").replace("'", "\\(aq").replace('"', '""')
    return '"' + s + '"'


def split_examples(discussion, where):
    """The discussion without its EXAMPLES: and SEE ALSO: paragraphs, the examples as (what it does, command line)
    pairs, and the see-also entries (`ucube NAME …` or `docs/NAME.md`)."""
    discussion = discussion or ""
    head = EXAMPLES_HEAD + "\n"
    if discussion.startswith(head):
        kept, block = "", discussion[len(head):]
    elif "\n\n" + head in discussion:
        kept, _, block = discussion.partition("\n\n" + head)
    else:
        sys.exit(f"generate-manual: {where} has no {EXAMPLES_HEAD} paragraph (HelpExamples.swift)")
    block, separator, see_also = block.partition("\n\n" + SEE_ALSO_HEAD + "\n")
    if not separator:
        sys.exit(f"generate-manual: {where} has no {SEE_ALSO_HEAD} paragraph after its examples")
    examples = []
    for example in block.split("\n\n"):
        rows = example.split("\n")
        if len(rows) != 2 or not rows[0].startswith("  # ") or not rows[1].startswith("  ucube "):
            sys.exit(f"generate-manual: cannot read the example {example!r} of {where}")
        examples.append((rows[0][4:], rows[1][2:]))
    rows = see_also.split("\n")
    if not all(row.startswith("  ") and row[2:].strip() == row[2:] and row[2:] for row in rows):
        sys.exit(f"generate-manual: cannot read the {SEE_ALSO_HEAD} lines {see_also!r} of {where}")
    return kept, examples, " ".join(row[2:] for row in rows).split(", ")


def examples_and_see_also(examples, see_also, sections):
    """A command's examples and see-also as roff lines: paragraphs titled in bold within its subsection, or (the
    root's, `sections` True) the EXAMPLES and SEE ALSO sections of the page."""
    out = [".Sh EXAMPLES"] if sections else [".Pp", ".Sy Examples :"]
    for does, line in examples:
        out.extend([".Pp", text(does) + ":", ".Dl " + literal(line)])
    out.extend([".Sh SEE ALSO"] if sections else [".Pp", ".Sy See also :"])
    for i, entry in enumerate(see_also):
        punctuation = " ," if i < len(see_also) - 1 else " ."
        if entry.startswith("ucube "):
            out.append(".Sx " + arg(entry[len("ucube "):]) + punctuation)
        else:
            out.append(".Pa " + arg(entry) + punctuation)
    return out


def split_root_discussion(discussion):
    """The root discussion without the section paragraphs, and the sections' rows by section name."""
    kept, sections = [], {}
    for paragraph in re.split(r"\n\s*\n", discussion or ""):
        head, _, rest = paragraph.partition("\n")
        name = SECTIONS.get(head.strip())
        if name is None:
            kept.append(paragraph)
            continue
        rows = []
        for row in rest.split("\n"):
            match = ROW.match(row)
            if not match:
                sys.exit(f"generate-manual: cannot read the {head.strip()} row {row!r}")
            rows.append(match.groups())
        sections[name] = rows
    missing = [n for n in SECTION_ORDER if n not in sections]
    if missing:
        sys.exit(f"generate-manual: the root discussion has no {', '.join(missing)} paragraph")
    return "\n\n".join(kept), sections


def flag_names(argument):
    names = argument.get("names") or []
    # ArgumentParser's own --version has no short name; ucube answers -V as well (UCube.main, before the parser).
    if names == [{"kind": "long", "name": "version"}]:
        names = [{"kind": "short", "name": "V"}] + names
    parts = []
    for n in names:
        prefix = "" if n["kind"] == "short" else ("-" if n["kind"] == "long" else "")
        parts.append(prefix + n["name"])
    return parts


def synopsis_item(argument):
    """`Op Fl -reader Ar reader`, `Ar amount`, … for the synopsis line."""
    value = arg(argument.get("valueName") or "value")
    if argument["kind"] == "positional":
        item = "Ar " + value + (" No ..." if argument.get("isRepeating") else "")
    else:
        name = flag_names(argument)[0] if flag_names(argument) else ""
        item = "Fl " + arg(name) + (" Ar " + value if argument["kind"] == "option" else "")
        if argument.get("isRepeating"):
            item += " No ..."
    return ("Op " + item) if argument.get("isOptional") else item


def option_item(argument):
    """The `.It` line of an option list."""
    if argument["kind"] == "positional":
        return ".It Ar " + arg(argument.get("valueName") or "value")
    names = " , ".join("Fl " + arg(n) for n in flag_names(argument))
    if argument["kind"] == "option":
        names += " Ar " + arg(argument.get("valueName") or "value")
    return ".It " + names


def option_body(argument):
    body = " ".join(x for x in [argument.get("abstract"), argument.get("discussion")] if x)
    notes = []
    values = argument.get("allValues")
    if values:
        notes.append("values: " + ", ".join(values))
    default = argument.get("defaultValue")
    if default not in (None, "", "false"):
        notes.append("default: " + default)
    if notes:
        body += " (" + "; ".join(notes) + ")"
    return lines_of(body)


def key(argument):
    return (argument["kind"], tuple(flag_names(argument)), argument.get("valueName"), argument.get("abstract"))


def visible(arguments):
    return [a for a in arguments or [] if a.get("shouldDisplay", True)]


def option_list(arguments):
    if not arguments:
        return []
    out = [".Bl -tag -width 6n"]
    for a in arguments:
        out.append(option_item(a))
        out.extend(option_body(a))
    out.append(".El")
    return out


def command_section(command, path, globals_):
    """`.Ss ucube rpc get-info`: synopsis, abstract, discussion, the options that are not the global ones."""
    own = [a for a in visible(command.get("arguments")) if key(a) not in globals_]
    out = [".Ss " + arg(" ".join(path[1:])), ".Nm", ".Cm " + arg(" ".join(path[1:]))]
    out.extend("." + synopsis_item(a) for a in own if a["kind"] != "flag" or a.get("isOptional"))
    out.append(".Pp")
    if command.get("abstract"):
        out.extend(lines_of(command["abstract"]))
    aliases = command.get("aliases")
    if aliases:
        out.extend([".Pp", text("Also: " + ", ".join(aliases) + ".")])
    discussion, examples, see_also = split_examples(command.get("discussion"), " ".join(path))
    if discussion:
        out.append(".Pp")
        out.extend(lines_of(discussion))
    subcommands = [c for c in command.get("subcommands") or [] if c.get("shouldDisplay", True)]
    if subcommands:
        out.extend([".Pp", text("Subcommands: " + ", ".join(c["commandName"] for c in subcommands) + ".")])
    out.extend(option_list(own))
    out.extend(examples_and_see_also(examples, see_also, sections=False))
    for sub in subcommands:
        out.extend(command_section(sub, path + [sub["commandName"]], globals_))
    return out


def manual(dump, date):
    root = dump["command"]
    name = root["commandName"]
    root_discussion, root_examples, root_see_also = split_examples(root.get("discussion"), name)
    description, sections = split_root_discussion(root_discussion)
    root_arguments = visible(root.get("arguments"))
    # The global options (GlobalOptions, --help, --version) appear in every command: listed once, under DESCRIPTION.
    globals_ = {key(a) for a in root_arguments}
    out = [
        '.\\" -*- coding: UTF-8 -*-',
        '.\\" Generated by Scripts/generate-manual.py from `' + name + ' --experimental-dump-help`; do not edit.',
        ".Dd " + datetime.date.fromisoformat(date).strftime("%B %-d, %Y"),
        ".Dt " + name.upper() + " 1",
        ".Os",
        ".Sh NAME",
        ".Nm " + name,
        ".Nd " + arg((root.get("abstract") or "").rstrip(".")),
        ".Sh SYNOPSIS",
        ".Nm",
    ]
    out.extend("." + synopsis_item(a) for a in root_arguments)
    out.extend([".Ar command", ".Op Ar arguments", ".Sh DESCRIPTION"])
    out.extend(lines_of(description))
    out.extend([".Pp", text("These global options are accepted before or after every command:")])
    out.extend(option_list(root_arguments))
    out.append(".Sh COMMANDS")
    for command in root.get("subcommands") or []:
        # ArgumentParser's own `help` has no discussion to hold examples: `ucube help COMMAND` needs none.
        if command.get("shouldDisplay", True) and command["commandName"] != "help":
            out.extend(command_section(command, [name, command["commandName"]], globals_))
    for section in SECTION_ORDER:
        out.append(".Sh " + section)
        out.append(".Bl -tag -width Ds")
        for row_name, meaning in sections[section]:
            macro = "Ev" if section == "ENVIRONMENT" else ("Pa" if section == "FILES" else "Li")
            out.append(".It " + macro + " " + arg(row_name))
            out.extend(lines_of(meaning))
        out.append(".El")
    out.extend(examples_and_see_also(root_examples, root_see_also, sections=True))
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--date", required=True, help="the page's date, YYYY-MM-DD (fixed, for reproducible output)")
    parser.add_argument("dump", nargs="?", help="the dump-help JSON file (default: standard input)")
    options = parser.parse_args()
    data = open(options.dump, "rb").read() if options.dump else sys.stdin.buffer.read()
    page = manual(json.loads(data.decode("utf-8")), options.date)
    sys.stdout.buffer.write(page.encode("utf-8"))


if __name__ == "__main__":
    main()
