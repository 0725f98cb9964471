"""What Scripts/generate-iso639.py and Scripts/generate-iso3166.py share: the Debian iso-codes package they read,
its version and date for the generated file's header, and Swift string literals."""

import subprocess


def package_version():
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "iso-codes"], capture_output=True, text=True, check=True
        )
        return "iso-codes " + out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "iso-codes (version unknown)"


def package_date():
    """The date of the package's newest Debian changelog entry (the JSON itself carries no date)."""
    import gzip
    import re

    try:
        with gzip.open("/usr/share/doc/iso-codes/changelog.Debian.gz", "rt", encoding="utf-8") as f:
            for line in f:
                m = re.match(r"^ -- .*>  \w+, (\d+ \w+ \d{4})", line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return "date unknown"


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
