#!/usr/bin/env python3
"""Drives `ucube serve` (over the built-in simulator) through its API and checks every answer against
docs/openapi.yaml. Run by Tests/ucubeTests/ServeEndToEndTests.swift, which starts the server:

    api_test.py --base http://127.0.0.1:PORT --openapi docs/openapi.yaml --ucube .build/debug/ucube SCENARIO

Scenarios: main (payments, idempotency, cancel, choice, events, errors, history), cross-process (a `ucube pay` and
the server share the journal's claims and the terminal's lock), sigterm PID (SIGTERM during the card wait),
token (a listener outside the loopback: pairing, 401 without the token), dump (one payment, and every answer that
carries it printed, for a search for card data). Prints one line per check and exits 1 at
the first failure. No verdict depends on speed: every wait is for an event or a state, bounded only by a safety net.
"""

import argparse
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

from openapi_check import OpenAPI

SAFETY_NET = 600  # seconds: a hang, never a verdict
CLEAR_PANS = ["4761739001010010", "5413330089020011", "5413330089010434"]


class Client:
    def __init__(self, base, openapi, token=None):
        parsed = urllib.parse.urlparse(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.openapi = openapi
        self.token = token
        self.answers = 0

    def request(self, method, path, body=None, headers=None, raw=None, check=True):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=SAFETY_NET)
        all_headers = dict(headers or {})
        if self.token and "Authorization" not in all_headers:
            all_headers["Authorization"] = "Bearer " + self.token
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            all_headers.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=data, headers=all_headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        kind = response.getheader("Content-Type", "")
        leak(text, f"{method} {path}")
        if check:
            self.openapi.check(method, path, response.status, kind, text)
        self.answers += 1
        value = json.loads(text) if kind.startswith("application/json") else text
        return response.status, value, response

    def wait_payment(self, request_id, until, what):
        deadline = time.monotonic() + SAFETY_NET
        while time.monotonic() < deadline:
            status, payment, _ = self.request("GET", "/v1/payments/" + urllib.parse.quote(request_id, safe=""))
            if status == 200 and until(payment):
                return payment
            time.sleep(0.2)
        fail(f"{request_id}: never {what} within the {SAFETY_NET} s safety net")

    def final(self, request_id):
        return self.wait_payment(request_id, lambda p: p["phase"] in ("finished", "failed"), "final")


class EventStream(threading.Thread):
    """Reads GET /v1/events in the background, keeping every event (and the raw text, checked at the end)."""

    def __init__(self, client, last_id=None, query_id=None):
        super().__init__(daemon=True)
        self.client = client
        self.last_id = last_id
        self.query_id = query_id
        self.events = []
        self.raw = []
        self.lock = threading.Condition()
        self.opened = threading.Event()
        self.status = None

    def run(self):
        connection = http.client.HTTPConnection(self.client.host, self.client.port, timeout=SAFETY_NET)
        headers = {"Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        if self.client.token:
            headers["Authorization"] = "Bearer " + self.client.token
        path = "/v1/events" + ("?lastEventId=" + urllib.parse.quote(self.query_id) if self.query_id else "")
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        self.status = response.status
        self.content_type = response.getheader("Content-Type", "")
        self.opened.set()
        current_id = None
        while True:
            line = response.fp.readline()
            if not line:
                break
            line = line.decode().rstrip("\n")
            with self.lock:
                self.raw.append(line)
            if line.startswith("id: "):
                current_id = line[4:]
            elif line.startswith("data: "):
                event = json.loads(line[6:])
                event["_id"] = current_id
                current_id = None
                with self.lock:
                    self.events.append(event)
                    self.lock.notify_all()

    def wait_for(self, predicate, what):
        deadline = time.monotonic() + SAFETY_NET
        with self.lock:
            while not any(predicate(e) for e in self.events):
                if time.monotonic() > deadline:
                    fail(f"no event {what} within the safety net")
                self.lock.wait(1)
            return next(e for e in self.events if predicate(e))

    def check_against(self, openapi):
        with self.lock:
            text = "\n".join(self.raw)
        leak(text, "the event stream")
        openapi.check("GET", "/v1/events", self.status, self.content_type, text)


def raw_request(client, data):
    """Sends `data` as it is; the answer's status line (the server closes the connection after it)."""
    with socket.create_connection((client.host, client.port), timeout=SAFETY_NET) as connection:
        connection.sendall(data)
        answer = b""
        while b"\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    client.answers += 1
    return answer.split(b"\r\n", 1)[0]


def leak(text, where):
    for pan in CLEAR_PANS:
        if pan in text:
            fail(f"{where}: a clear PAN leaves the server")


def fail(message):
    print("not ok - " + message, flush=True)
    sys.exit(1)


def ok(message):
    print("ok - " + message, flush=True)


def expect(condition, message, detail=""):
    if not condition:
        fail(f"{message}: {detail}")
    ok(message)


def scenario_main(client, args):
    status, page, _ = client.request("GET", "/")
    expect(status == 200 and "<title>ucube POS</title>" in page, "the demo page is served at /")
    status, terminals, _ = client.request("GET", "/v1/terminals")
    expect(status == 200 and terminals["terminals"][0]["device"] == "sim", "GET /v1/terminals lists sim", terminals)
    status, info, _ = client.request("GET", "/v1/terminals/sim")
    expect(status == 200 and info["busy"] is False and isinstance(info.get("info"), dict),
           "GET /v1/terminals/sim answers GetInfo when idle", info)

    stream = EventStream(client)
    stream.start()
    stream.opened.wait(SAFETY_NET)

    # Idempotency: eight POSTs with one request id at once start one payment.
    order = {"amount": "12.50", "currency": "EUR", "requestId": "order-same", "card": "visa-contact"}
    results = []
    threads = [threading.Thread(target=lambda: results.append(client.request("POST", "/v1/payments", order)))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(status for status, _, _ in results)
    expect(statuses.count(202) == 1 and statuses.count(200) == 7,
           "eight concurrent POSTs with one requestId: one 202, seven 200", statuses)
    created = next(r for r in results if r[0] == 202)
    expect(created[2].getheader("Location") == "/v1/payments/order-same", "202 gives the payment's URL in Location")
    payment = client.final("order-same")
    expect(payment["status"] == "APPROVED", "the payment is APPROVED", payment["status"])
    expect(payment["outcome"]["status"] == "APPROVED" and payment["outcome"]["receipt"]["requestID"] == "order-same",
           "the final state carries pay --json's outcome with its receipt", list(payment["outcome"].keys())[:8])
    expect(any("476173******0010" in line for line in payment["receipt"]), "the receipt shows the masked PAN",
           payment["receipt"])
    status, again, _ = client.request("POST", "/v1/payments", order)
    expect(status == 200 and again["status"] == "APPROVED", "the same requestId after the end answers its outcome")
    status, history, _ = client.request("GET", "/v1/history?status=approved")
    taken = [p for p in history["payments"] if p["requestID"] == "order-same"]
    expect(status == 200 and len(taken) == 1, "the journal holds one payment for the request id", len(taken))
    status, reused, _ = client.request("POST", "/v1/payments", dict(order, amount="99"))
    expect(status == 409 and reused["error"]["code"] == "request-id-reused",
           "the same requestId with another amount is refused", reused)

    client.request("POST", "/v1/payments", {"amount": "3", "requestId": "order-declined", "card": "declined-aac"})
    expect(client.final("order-declined")["status"] == "DECLINED", "a declining card gives DECLINED")

    # One payment per terminal; cancel during the card wait, with ucube cancel's answers.
    status, _, _ = client.request("POST", "/v1/payments",
                                  {"amount": "4", "requestId": "order-wait", "card": "card-timeout",
                                   "cardTimeout": 120})
    expect(status == 202, "a payment waiting for a card starts", status)
    status, busy, _ = client.request("POST", "/v1/payments", {"amount": "4", "requestId": "order-other"})
    expect(status == 409 and busy["error"]["code"] == "terminal-busy", "a second payment on the terminal: 409", busy)
    status, terminals, _ = client.request("GET", "/v1/terminals")
    expect(terminals["terminals"][0]["busy"] and terminals["terminals"][0]["requestId"] == "order-wait",
           "GET /v1/terminals says the terminal is busy with it", terminals)
    client.wait_payment("order-wait", lambda p: p["state"] is not None, "running")
    status, cancel, _ = client.request("POST", "/v1/payments/order-wait/cancel")
    expect(status == 202 and cancel["result"] == "cancelled", "cancel during the card wait: cancelled", cancel)
    payment = client.final("order-wait")
    expect(payment["status"] == "CANCELLED" and payment["cancel"] == "accepted", "the payment ends CANCELLED",
           payment["status"])
    status, cancel, _ = client.request("POST", "/v1/payments/order-wait/cancel")
    expect(status == 200 and cancel["result"] == "already-cancelled", "a second cancel: already-cancelled", cancel)
    status, cancel, _ = client.request("POST", "/v1/payments/order-same/cancel")
    expect(status == 409 and cancel["result"] == "refused", "cancel of an approved payment: refused", cancel)
    status, cancel, _ = client.request("POST", "/v1/payments/nobody/cancel")
    expect(status == 404 and cancel["result"] == "no-payment", "cancel of an unknown payment: no-payment", cancel)

    # The application choice, answered as the shell's prompt is.
    client.request("POST", "/v1/payments", {"amount": "5", "requestId": "order-choice", "card": "mc-two-apps"})
    prompted = client.wait_payment("order-choice", lambda p: p["prompt"] is not None, "prompting")
    labels = [c["label"] for c in prompted["prompt"]["candidates"]]
    expect(labels == ["MASTERCARD", "MAESTRO"], "the prompt lists the card's applications", labels)
    status, wrong, _ = client.request("POST", "/v1/payments/order-choice/choice", {"application": 7})
    expect(status == 400 and wrong["error"]["code"] == "invalid-choice", "a choice out of range: 400", wrong)
    status, _, _ = client.request("POST", "/v1/payments/order-choice/choice", {"application": 2})
    expect(status == 200, "the choice is taken", status)
    payment = client.final("order-choice")
    expect(payment["status"] == "APPROVED" and payment["outcome"]["applicationLabel"] == "MAESTRO",
           "the chosen application pays", payment["outcome"].get("applicationLabel"))
    status, none, _ = client.request("POST", "/v1/payments/order-choice/choice", {"application": 1})
    expect(status == 409 and none["error"]["code"] == "no-prompt", "a choice with no prompt: 409", none)

    # A card whose verification is the signature: a `signature` prompt just before the end (in USD: the EUR totals
    # below count the other payments).
    client.request("POST", "/v1/payments",
                   {"amount": "7", "currency": "USD", "requestId": "order-signature",
                    "card": "visa-contactless-signature"})
    payment = client.final("order-signature")
    expect(payment["status"] == "APPROVED" and payment["outcome"]["signatureRequired"] is True
           and payment["prompt"] is None, "a signature card is approved, the outcome says signatureRequired",
           payment["outcome"].get("signatureRequired"))
    expect(any("signature" in line.lower() for line in payment["receipt"]), "its receipt has the signature line",
           payment["receipt"])
    stream.wait_for(lambda e: e["type"] == "finished" and e["requestId"] == "order-signature",
                    "order-signature finished")
    mine = [e for e in stream.events if e.get("requestId") == "order-signature"]
    expect([e["type"] for e in mine[-2:]] == ["prompt", "finished"] and mine[-2]["payment"]["prompt"]["kind"]
           == "signature", "the stream asks for the signature just before the end", [e["type"] for e in mine])
    others = [e for e in stream.events if e["type"] == "prompt" and e["payment"]["prompt"]["kind"] == "signature"
              and e["requestId"] != "order-signature"]
    expect(not others, "no other payment asks for a signature", others)

    # Events: every payment's states and outcome, ids in order; Last-Event-ID replays what was missed.
    stream.wait_for(lambda e: e["type"] == "finished" and e["requestId"] == "order-choice", "order-choice finished")
    events = list(stream.events)
    for request_id in ["order-same", "order-declined", "order-wait", "order-choice", "order-signature"]:
        mine = [e["type"] for e in events if e.get("requestId") == request_id]
        expect(mine[0] == "started" and mine[-1] == "finished" and "state" in mine,
               f"the stream has {request_id}'s start, states and end", mine)
    expect(any(e["type"] == "prompt" and e["requestId"] == "order-choice" for e in events),
           "the stream has the application prompt")
    sequences = [int(e["_id"].split("-")[1]) for e in events]
    expect(sequences == sorted(sequences) and len(set(sequences)) == len(sequences), "event ids increase")
    middle = events[len(events) // 2]
    replay = EventStream(client, last_id=middle["_id"])
    replay.start()
    wanted = events[len(events) // 2 + 1:]
    replay.wait_for(lambda e: e.get("_id") == wanted[-1]["_id"], "the replay's last event")
    expect([e["_id"] for e in replay.events[:len(wanted)]] == [e["_id"] for e in wanted],
           "Last-Event-ID replays exactly the events after it", len(wanted))
    by_query = EventStream(client, query_id=middle["_id"])
    by_query.start()
    by_query.wait_for(lambda e: e.get("_id") == wanted[-1]["_id"], "the replay's last event (query)")
    expect([e["_id"] for e in by_query.events[:len(wanted)]] == [e["_id"] for e in wanted],
           "?lastEventId= replays the same", len(wanted))
    gone = EventStream(client, last_id="someotherserver-3")
    gone.start()
    first = gone.wait_for(lambda e: True, "a first event")
    expect(first["type"] == "reset", "an id of another server run starts with a reset event", first)
    for s in (stream, replay, by_query, gone):
        s.check_against(client.openapi)

    # Refusals, each a JSON error with a code.
    status, error, _ = client.request("POST", "/v1/payments", raw=b"x" * (20 * 1024))
    expect(status == 413 and error["error"]["code"] == "body-too-large", "a 20 KiB body: 413", error)
    status_line = raw_request(client, b"GET /v1/terminals HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Big: %s\r\n\r\n"
                              % (client.port, b"a" * (20 * 1024)))
    expect(status_line.startswith(b"HTTP/1.1 400"), "20 KiB of headers: 400, closed", status_line)
    status, error, _ = client.request("POST", "/v1/payments", raw=b"{not json")
    expect(status == 400 and error["error"]["code"] == "invalid-json", "a body that is not JSON: 400", error)
    status, error, _ = client.request("POST", "/v1/payments", {"amount": "12.505", "currency": "EUR"})
    expect(status == 400 and error["error"]["code"] == "invalid-payment", "an amount EUR cannot have: 400", error)
    status, error, _ = client.request("GET", "/v1/nothing")
    expect(status == 404 and error["error"]["code"] == "not-found", "an unknown route: 404", error)
    status, error, _ = client.request("DELETE", "/v1/payments")
    expect(status == 405 and error["error"]["code"] == "method-not-allowed", "a wrong method: 405", error)
    status, error, _ = client.request("GET", "/v1/payments/nobody")
    expect(status == 404 and error["error"]["code"] == "no-payment", "an unknown payment: 404", error)
    origin = {"Origin": "https://evil.example"}
    status, error, _ = client.request("POST", "/v1/payments", {"amount": "1", "requestId": "order-evil"}, origin)
    expect(status == 403 and error["error"]["code"] == "origin-refused", "a page of another origin: 403", error)
    status, error, _ = client.request("GET", "/v1/payments/order-evil")
    expect(status == 404, "and it started nothing", error)
    own = {"Origin": f"http://127.0.0.1:{client.port}"}
    status, _, _ = client.request("GET", "/v1/terminals", headers=own)
    expect(status == 200, "a page of the server's own origin is served", status)
    allowed = {"Origin": "https://pos.example", "Access-Control-Request-Method": "POST"}
    status, _, answer = client.request("OPTIONS", "/v1/payments", headers=allowed)
    expect(status == 204 and answer.getheader("Access-Control-Allow-Origin") == "https://pos.example",
           "--allow-origin: the preflight of its page is allowed", status)
    status, _, answer = client.request("GET", "/v1/terminals", headers={"Origin": "https://pos.example"})
    expect(status == 200 and answer.getheader("Access-Control-Allow-Origin") == "https://pos.example",
           "--allow-origin: its page reads the answers", status)
    status, error, _ = client.request("OPTIONS", "/v1/payments", headers={"Origin": "https://evil.example"})
    expect(status == 403 and error["error"]["code"] == "origin-refused", "another origin's preflight: 403", error)
    status, error, _ = client.request("GET", "/v1/terminals", headers={"Host": "rebound.example:80"})
    expect(status == 421 and error["error"]["code"] == "host-refused", "a Host that is not the loopback: 421", error)
    status, error, _ = client.request("GET", "/v1/history?since=someday")
    expect(status == 400 and error["error"]["code"] == "invalid-query", "a history filter that is no time: 400", error)
    status, totals, _ = client.request("GET", "/v1/history/totals?since=today")
    approved = [g for g in totals["groups"] if g["currency"] == "EUR"][0]["approved"]
    expect(status == 200 and approved["count"] == 2 and approved["amount"] == 1750,
           "totals count the two approved payments", approved)


def run_ucube(args, *words, timeout=SAFETY_NET):
    return subprocess.run([args.ucube, *words], capture_output=True, text=True, timeout=timeout)


def start_simulator(args, card):
    """`ucube simulate --listen 127.0.0.1:0 --card CARD`: another terminal, for a `ucube pay` beside the server."""
    state = os.path.join(os.environ.get("XDG_STATE_HOME", "/tmp"), "tcp-sim-" + card)
    process = subprocess.Popen([args.ucube, "simulate", "--listen", "127.0.0.1:0", "--card", card,
                                "--state-dir", state], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    port = int(line.strip().rsplit(":", 1)[1])
    return process, f"tcp://127.0.0.1:{port}"


def scenario_cross_process(client, args):
    # The server owns its terminal: a `ucube pay` on it is refused at once (exit 7), nothing taken.
    refused = run_ucube(args, "--device", "sim", "pay", "1", "--card", "visa-contact", "--request-id", "order-sim")
    expect(refused.returncode == 7 and "in use by another ucube process" in refused.stderr,
           "ucube pay on the server's terminal is refused (exit 7)", refused.stderr[-300:])
    approving, other = start_simulator(args, "visa-contact")
    waiting_sim, waiting_device = start_simulator(args, "card-timeout")
    try:
        # A payment `ucube pay` took on another terminal: the server answers it from the journal and takes none.
        done = run_ucube(args, "--device", other, "--json", "pay", "7", "--request-id", "order-pay")
        expect(done.returncode == 0, "ucube pay takes a payment on another terminal", done.stderr[-400:])
        status, payment, _ = client.request("POST", "/v1/payments",
                                            {"amount": "7", "requestId": "order-pay", "card": "visa-contact"})
        expect(status == 200 and payment["status"] == "APPROVED" and payment["phase"] == "finished",
               "POST with its request id answers its journalled outcome", payment)
        # A payment the server took: `ucube pay` with its request id takes none.
        client.request("POST", "/v1/payments", {"amount": "8", "requestId": "order-served", "card": "visa-contact"})
        client.final("order-served")
        again = run_ucube(args, "--device", other, "--json", "pay", "8", "--request-id", "order-served")
        expect(again.returncode == 0 and json.loads(again.stdout)["requestID"] == "order-served",
               "ucube pay with the server's request id answers the journalled payment", again.stdout[-300:])
        # While `ucube pay` runs a request id, the server refuses it (409) and takes nothing.
        waiting = subprocess.Popen([args.ucube, "--device", waiting_device, "pay", "9", "--card-timeout", "120",
                                    "--request-id", "order-held"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + SAFETY_NET
        while "order-held" not in run_ucube(args, "history", "--json").stdout:
            if time.monotonic() > deadline or waiting.poll() is not None:
                fail("ucube pay never started its payment")
            time.sleep(0.2)
        status, error, _ = client.request("POST", "/v1/payments",
                                          {"amount": "9", "requestId": "order-held", "card": "card-timeout"})
        expect(status == 409 and error["error"]["code"] == "request-id-running",
               "the same request id while ucube pay runs it: 409", error)
        status, terminals, _ = client.request("GET", "/v1/terminals")
        expect(status == 200 and not terminals["terminals"][0]["busy"], "and the server's terminal stays free")
        cancel = run_ucube(args, "--device", waiting_device, "cancel")
        expect(cancel.returncode == 0, "ucube cancel reaches ucube pay", cancel.stderr)
        waiting.wait(SAFETY_NET)
        expect(waiting.returncode == 11, "ucube pay ends CANCELLED (exit 11)", waiting.returncode)
        status, payment, _ = client.request("GET", "/v1/payments/order-held")
        expect(status == 200 and payment["status"] == "CANCELLED", "the server answers it from the journal", payment)
        history = json.loads(run_ucube(args, "history", "--json").stdout)
        ids = [p["requestID"] for p in history]
        expect(ids.count("order-pay") == 1 and ids.count("order-served") == 1 and ids.count("order-held") == 1
               and "order-sim" not in ids, "one journalled payment per request id", ids)
    finally:
        approving.terminate()
        waiting_sim.terminate()


def scenario_sigterm(client, args):
    stream = EventStream(client)
    stream.start()
    stream.opened.wait(SAFETY_NET)
    client.request("POST", "/v1/payments",
                   {"amount": "6", "requestId": "order-term", "card": "card-timeout", "cardTimeout": 120})
    client.wait_payment("order-term", lambda p: p["state"] is not None, "running")
    os.kill(args.pid, signal.SIGTERM)
    finished = stream.wait_for(lambda e: e["type"] == "finished", "the payment's end")
    expect(finished["payment"]["status"] == "CANCELLED", "SIGTERM cancels the payment in its card wait",
           finished["payment"]["status"])
    stream.join(SAFETY_NET)
    expect(not stream.is_alive(), "the event stream ends as the server stops")
    stream.check_against(client.openapi)


def scenario_dump(client, args):
    """One payment (visa-contact, 10.00), then every answer that carries it printed whole, for the caller to search:
    its state, the history, the totals, the event stream replayed from the start."""
    status, _, _ = client.request("POST", "/v1/payments", {"amount": "10", "card": "visa-contact", "requestId": "dump"})
    expect(status == 202, "the payment starts", status)
    payment = client.final("dump")
    expect(payment["phase"] == "finished", "the payment ends", payment["status"])
    for path in ["/v1/payments/dump", "/v1/history", "/v1/history/totals", "/v1/terminals"]:
        _, body, _ = client.request("GET", path)
        print(json.dumps(body), flush=True)
    stream = EventStream(client, last_id="replay-everything-0")
    stream.start()
    stream.wait_for(lambda e: e["type"] == "finished", "the replayed end")
    stream.check_against(client.openapi)
    with stream.lock:
        print("\n".join(stream.raw), flush=True)


def scenario_token(client, args):
    status, error, _ = client.request("GET", "/v1/terminals")
    expect(status == 401 and error["error"]["code"] == "token-required", "outside the loopback, no token: 401", error)
    status, error, _ = client.request("POST", "/v1/payments", {"amount": "1", "requestId": "order-untrusted"})
    expect(status == 401, "nor a payment", error)
    status, error, _ = client.request("GET", "/v1/terminals", headers={"Authorization": "Bearer " + "0" * 64})
    expect(status == 401 and error["error"]["code"] == "token-invalid", "a token never paired: 401", error)
    status, error, _ = client.request("POST", "/v1/pair", {"code": "wrong", "name": "till-1"})
    expect(status == 403 and error["error"]["code"] == "pairing-refused", "a wrong pairing code: 403", error)
    status, paired, _ = client.request("POST", "/v1/pair", {"code": args.code, "name": "till-1"})
    expect(status == 201 and re.fullmatch("[0-9a-f]{64}", paired["token"]), "the code gives a token", paired)
    status, error, _ = client.request("POST", "/v1/pair", {"code": args.code, "name": "till-2"})
    expect(status == 404 and error["error"]["code"] == "pairing-closed", "the code works once", error)
    client.token = paired["token"]
    status, terminals, _ = client.request("GET", "/v1/terminals")
    expect(status == 200, "with the token: 200", terminals)
    with open(args.token_file, encoding="utf-8") as f:
        stored = f.read()
    expect(paired["token"] not in stored and "sha256:" in stored and "till-1" in stored,
           "the token file keeps the token's hash, not the token")
    expect(os.stat(args.token_file).st_mode & 0o777 == 0o600, "the token file is 0600",
           oct(os.stat(args.token_file).st_mode))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--openapi", required=True)
    parser.add_argument("--ucube")
    parser.add_argument("--pid", type=int)
    parser.add_argument("--code")
    parser.add_argument("--token-file")
    parser.add_argument("scenario", choices=["main", "cross-process", "sigterm", "token", "dump"])
    args = parser.parse_args()
    openapi = OpenAPI(args.openapi)
    client = Client(args.base, openapi)
    {"main": scenario_main, "cross-process": scenario_cross_process, "sigterm": scenario_sigterm,
     "token": scenario_token, "dump": scenario_dump}[args.scenario](client, args)
    print(f"# {client.answers} answers, {openapi.checked} documents checked against {args.openapi}", flush=True)


if __name__ == "__main__":
    main()
