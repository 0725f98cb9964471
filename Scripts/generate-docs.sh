#!/usr/bin/env bash
# Generates man/ucube.1 and completions/ from the command definitions (Scripts/generate-manual.py over
# `ucube --experimental-dump-help`, and --generate-completion-script), so they never drift from the code.
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

if [ "${1:-}" = "--check" ]; then
    if ! diff -ru man "$out/man" || ! diff -ru completions "$out/completions"; then
        echo "man/ or completions/ are out of date: run Scripts/generate-docs.sh and commit the result" >&2
        exit 1
    fi
    echo "man/ and completions/ match the command definitions"
else
    rm -rf man completions
    cp -r "$out/man" man
    cp -r "$out/completions" completions
    echo "wrote man/ucube.1 and completions/"
fi
