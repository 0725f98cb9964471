/// The demo POS page `ucube serve` answers at `/` (docs/serve.md, "The demo page"): static HTML and JavaScript, no
/// build step, no resource outside the binary. It takes an amount and a currency, pays, cancels, shows the payment's
/// live states from the event stream, asks the application choice, and shows the outcome and the receipt; the
/// payment under way is kept in the browser's `localStorage`, so a reload picks it up again (its state from
/// `GET /v1/payments/{id}`, then the event stream). Outside the loopback it first asks for the pairing code the terminal
/// shows (`serve --pair`), trades it for a token (`POST /v1/pair`) and sends that token with every request, the event
/// stream's included: the stream is read with `fetch`, which can send a header, where `EventSource` cannot.
package enum DemoPage {
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    package static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>ucube POS</title>
        <link rel="icon" href="data:,">
        <style>
        body { font: 16px system-ui, sans-serif; max-width: 40em; margin: 2em auto; padding: 0 1em; color: #222; }
        fieldset { border: 1px solid #ccc; border-radius: 6px; margin-bottom: 1em; }
        label { display: inline-block; margin: .3em 1em .3em 0; }
        input, select, button { font: inherit; padding: .3em .5em; }
        button { cursor: pointer; }
        #status { font-size: 1.6em; font-weight: bold; }
        .APPROVED { color: #070; } .DECLINED, .CANCELLED { color: #a00; }
        pre { background: #f5f5f5; padding: .6em; overflow-x: auto; }
        #prompt, #signature { border: 2px solid #c80; padding: .6em; border-radius: 6px; }
        #message { color: #a00; }
        [hidden] { display: none !important; }
        </style>
        </head>
        <body>
        <h1>ucube POS</h1>
        <p id="simulated" hidden>The terminal is the built-in simulator: outcomes are simulated, no money moves.</p>
        <fieldset id="pairing" hidden>
          <legend>Pair this till</legend>
          <p>This page is outside the server's computer: type the code the terminal's screen shows
          (<code>ucube serve --pair</code>).</p>
          <label>Code <input id="pair-code" size="8" inputmode="numeric" autocomplete="off"></label>
          <label>Till name <input id="pair-name" value="demo-page" size="12"></label>
          <button id="pair" type="button">Pair</button>
        </fieldset>
        <fieldset id="payment">
          <legend>Payment</legend>
          <label>Terminal <select id="device"></select></label>
          <label>Amount <input id="amount" value="12.50" size="8" inputmode="decimal"></label>
          <label>Currency <input id="currency" value="EUR" size="4"></label>
          <label id="card-label" hidden>Simulated card <select id="card">
            <option>visa-contact</option><option>declined-aac</option><option>mc-two-apps</option>
            <option>visa-contactless</option><option>visa-contactless-declined</option><option>card-timeout</option>
            <option>visa-contactless-signature</option>
          </select></label>
          <label>Card wait (s) <input id="card-timeout" value="30" size="4"></label>
          <p><button id="pay" type="button">Pay</button> <button id="cancel" type="button" disabled>Cancel</button></p>
        </fieldset>
        <p id="message" role="alert"></p>
        <div id="prompt" hidden>
          <p>The card has several applications: which one?</p>
          <div id="choices"></div>
          <button id="choice-cancel" type="button">Cancel the payment</button>
        </div>
        <p id="signature" hidden role="status">Signature required: have the cardholder sign the receipt, and compare
        the signature with the card's.</p>
        <p>Request id: <code id="request-id">-</code></p>
        <p>Phase: <span id="phase">-</span> · State: <span id="state">-</span></p>
        <p id="status"></p>
        <h2>Receipt</h2>
        <pre id="receipt"></pre>
        <details><summary>Outcome (as <code>ucube pay --json</code>)</summary><pre id="outcome"></pre></details>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const key = "ucube-demo-payment";
        const eventKey = "ucube-demo-last-event";
        const tokenKey = "ucube-demo-token";
        const token = () => localStorage.getItem(tokenKey);
        const authorization = () => (token() ? { Authorization: "Bearer " + token() } : {});
        let current = localStorage.getItem(key);
        let shown = { id: null, version: -1 };

        function say(text) { $("message").textContent = text || ""; }

        async function call(method, path, body) {
          const headers = authorization();
          if (body) headers["Content-Type"] = "application/json";
          const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
          let json = null;
          try { json = await response.json(); } catch (e) { json = null; }
          return { status: response.status, json };
        }

        function render(payment) {
          if (!payment || payment.requestId !== current) return;
          // An answer read before an event may arrive after it (a POST's, a GET's): the newer state stays.
          if (shown.id === current && payment.version < shown.version) return;
          shown = { id: current, version: payment.version };
          const final = payment.phase === "finished" || payment.phase === "failed";
          $("request-id").textContent = payment.requestId;
          $("phase").textContent = payment.phase || "-";
          if (payment.state) $("state").textContent = payment.state;
          $("status").textContent = payment.status || (payment.phase === "failed" ? "NOT STARTED" : "");
          $("status").className = payment.status || "";
          $("pay").disabled = !final;
          $("cancel").disabled = final;
          if (payment.error) say(payment.error.message);
          showPrompt(final || (payment.prompt && payment.prompt.kind !== "application") ? null : payment.prompt);
          const signs = (payment.prompt && payment.prompt.kind === "signature")
            || (payment.outcome && payment.outcome.signatureRequired && payment.status === "APPROVED");
          $("signature").hidden = !signs;
          if ("receipt" in payment) $("receipt").textContent = (payment.receipt || []).join("\n");
          if ("outcome" in payment) {
            $("outcome").textContent = payment.outcome ? JSON.stringify(payment.outcome, null, 2) : "";
          }
        }

        function showPrompt(prompt) {
          const box = $("choices");
          box.textContent = "";
          $("prompt").hidden = !prompt;
          if (!prompt) return;
          for (const candidate of prompt.candidates) {
            const button = document.createElement("button");
            button.type = "button";
            button.className = "choice";
            button.dataset.number = candidate.number;
            button.textContent = candidate.number + ". " + candidate.label + " (" + candidate.aid + ")";
            button.onclick = () => choose({ application: candidate.number });
            box.appendChild(button);
          }
        }

        async function choose(body) {
          const answer = await call("POST", "/v1/payments/" + encodeURIComponent(current) + "/choice", body);
          if (answer.status !== 200) say(answer.json && answer.json.error ? answer.json.error.message : "choice refused");
          else $("prompt").hidden = true;
        }

        async function refresh() {
          if (!current) return;
          const answer = await call("GET", "/v1/payments/" + encodeURIComponent(current));
          if (answer.status === 200) render(answer.json);
        }

        $("pay").onclick = async () => {
          say("");
          current = (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + "-" + Math.random()).toUpperCase();
          localStorage.setItem(key, current);
          $("receipt").textContent = ""; $("outcome").textContent = ""; $("state").textContent = "-";
          $("signature").hidden = true;
          const order = { amount: $("amount").value.trim(), currency: $("currency").value.trim(),
            requestId: current, device: $("device").value, cardTimeout: Number($("card-timeout").value) };
          if (!$("card-label").hidden) order.card = $("card").value;
          $("pay").disabled = true;
          const answer = await call("POST", "/v1/payments", order);
          if (answer.status === 202 || answer.status === 200) render(answer.json);
          else {
            $("pay").disabled = false;
            say(answer.json && answer.json.error ? answer.json.error.message : "HTTP " + answer.status);
          }
        };

        $("cancel").onclick = async () => {
          if (!current) return;
          const answer = await call("POST", "/v1/payments/" + encodeURIComponent(current) + "/cancel");
          if (answer.json) say(answer.json.message);
        };
        $("choice-cancel").onclick = () => choose({ cancel: true });

        // The event stream, read with fetch (it sends the token; EventSource cannot): each event's id is kept, so
        // that after a reload or a dropped connection the stream starts after the last event this page saw and the
        // server replays what it missed.
        function handle(block) {
          let id = null;
          const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          if (data.length === 0) return;  // a keep-alive comment
          if (id) localStorage.setItem(eventKey, id);
          const event = JSON.parse(data.join("\n"));
          if (event.type === "reset") { refresh(); return; }
          if (event.requestId === current) render(event.payment);
        }

        async function follow() {
          for (;;) {
            try {
              const headers = authorization();
              const seen = localStorage.getItem(eventKey);
              if (seen) headers["Last-Event-ID"] = seen;
              const response = await fetch("/v1/events", { headers, cache: "no-store" });
              if (response.status === 401) { pairing(); return; }
              if (!response.ok || !response.body) throw new Error("HTTP " + response.status);
              await refresh();
              const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
              let buffer = "";
              for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                buffer += value;
                for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
                  handle(buffer.slice(0, end));
                  buffer = buffer.slice(end + 2);
                }
              }
            } catch (e) {
              // The server went away or restarted: try again in a second; the id kept replays what was missed.
            }
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        }

        function pairing(answer) {
          localStorage.removeItem(tokenKey);
          $("pairing").hidden = false;
          $("payment").hidden = true;
          if (answer && answer.json && answer.json.error) say(answer.json.error.message);
          document.body.dataset.ready = "pairing";
        }

        $("pair").onclick = async () => {
          const answer = await call("POST", "/v1/pair",
            { code: $("pair-code").value.trim(), name: $("pair-name").value.trim() || "demo-page" });
          if (answer.status !== 201) {
            say(answer.json && answer.json.error ? answer.json.error.message : "HTTP " + answer.status);
            return;
          }
          localStorage.setItem(tokenKey, answer.json.token);
          $("pairing").hidden = true;
          $("payment").hidden = false;
          say("");
          start();
        };

        async function start() {
          const answer = await call("GET", "/v1/terminals");
          if (answer.status === 401) { pairing(answer); return; }
          if (answer.status === 200) {
            for (const terminal of answer.json.terminals) {
              const option = document.createElement("option");
              option.textContent = terminal.device;
              option.dataset.simulated = terminal.simulated;
              $("device").appendChild(option);
            }
          }
          const pick = () => {
            const option = $("device").selectedOptions[0];
            const simulated = option && option.dataset.simulated === "true";
            $("card-label").hidden = !simulated;
            $("simulated").hidden = !simulated;
          };
          $("device").onchange = pick;
          pick();
          follow();
          await refresh();
          document.body.dataset.ready = "true";
        }
        start();
        </script>
        </body>
        </html>
        """#
}
