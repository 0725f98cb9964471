#!/usr/bin/env python3
"""An exec hook for `ucube pay --authorize exec:...`: forwards ucube's request to an HTTPS host and prints its answer.

ucube writes one JSON document (an authorisation request or a reversal) to stdin and reads the answer from stdout
(docs/authorization.md). The host is $UCUBE_HOST_URL, e.g. the host simulator's https://127.0.0.1:PORT/authorize
(docs/host-simulator.md), trusted through the CA file $UCUBE_AUTHORIZE_CA. Exits non-zero when the host cannot be
reached or answers anything but 2xx: ucube then goes on "unable to go online". Python's standard library only.
"""
import os
import ssl
import sys
import urllib.request

MAXIMUM_ANSWER = 64 * 1024  # ucube reads at most 64 KiB

try:
    url = os.environ["UCUBE_HOST_URL"]
    context = ssl.create_default_context(cafile=os.environ.get("UCUBE_AUTHORIZE_CA"))
    request = urllib.request.Request(
        url, data=sys.stdin.buffer.read(MAXIMUM_ANSWER + 1), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=25, context=context) as response:
        sys.stdout.buffer.write(response.read(MAXIMUM_ANSWER))
except Exception as error:  # a refused request (HTTPError), no host, a bad certificate, a timeout, no URL
    print(f"forward-to-host: {error}", file=sys.stderr)
    sys.exit(1)
