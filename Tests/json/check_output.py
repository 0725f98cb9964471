#!/usr/bin/env python3
"""Checks one output of ucube against its JSON Schema (docs/schemas/, docs/json.md) with an independent validator
(python3-jsonschema, draft 2020-12), and its stream style: `document` is one JSON document and nothing else; `lines`
is JSON lines, one object a line and at least one.

usage: check_output.py SCHEMA document|lines FILE
Prints "N valid" and exits 0, or prints what is wrong and exits 1."""
import json
import sys

import jsonschema


def main():
    schema_path, style, path = sys.argv[1:4]
    schema = json.load(open(schema_path, encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    text = open(path, encoding="utf-8").read()
    if style == "document":
        try:
            documents = [json.loads(text)]
        except ValueError as error:
            return fail(f"not one JSON document ({error}): {text[:400]!r}")
    elif style == "lines":
        documents = []
        for number, line in enumerate(text.splitlines(), 1):
            try:
                document = json.loads(line)
            except ValueError as error:
                return fail(f"line {number} is not a JSON document ({error}): {line[:400]!r}")
            if not isinstance(document, dict):
                return fail(f"line {number} is not an object: {line[:400]!r}")
            documents.append(document)
    else:
        return fail(f"unknown style {style!r}")
    if not documents:
        return fail("no document")
    for number, document in enumerate(documents, 1):
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        if errors:
            details = "; ".join(
                f"at {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in errors[:5])
            return fail(f"document {number} does not match {schema_path}: {details}")
    print(len(documents), "valid")
    return 0


def fail(message):
    print(message)
    return 1


if __name__ == "__main__":
    sys.exit(main())
