#!/usr/bin/env python3
"""Drives the demo POS page of `ucube serve` (over the built-in simulator) in headless Chromium with selenium, as a
cashier would: an approved payment, a declined one, a cancel during the card wait, an application choice answered
on the page, a reload in the middle of a payment that picks it up again, and a card that asks for the signature.
With --pair-code, the page is reached from outside the loopback: it asks for the pairing code, trades it for a token,
then pays with it. Run by Tests/ucubeTests/ServeBrowserTests.swift, which starts the server:

    browser_test.py --base http://127.0.0.1:PORT
    browser_test.py --base http://ADDRESS:PORT --pair-code CODE

Every wait is for something on the page, bounded only by a safety net: no verdict depends on speed."""

import argparse
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

SAFETY_NET = 600


def fail(message):
    print("not ok - " + message, flush=True)
    sys.exit(1)


def ok(message):
    print("ok - " + message, flush=True)


class Page:
    def __init__(self, driver, base):
        self.driver = driver
        self.base = base

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def wait(self, condition, what):
        try:
            WebDriverWait(self.driver, SAFETY_NET, poll_frequency=0.2).until(lambda d: condition())
        except TimeoutException:
            fail(f"{what}: not within the {SAFETY_NET} s safety net; status {self.text('status')!r}, "
                 f"phase {self.text('phase')!r}, message {self.text('message')!r}")

    def ready(self):
        return self.driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready")

    def open(self, ready="true"):
        self.driver.get(self.base + "/")
        self.wait(lambda: self.ready() == ready, f"the page is ready ({ready})")

    def pay(self, card, amount="12.50", card_timeout="30"):
        self.wait(lambda: self.driver.find_element(By.ID, "pay").is_enabled(), "Pay is enabled")
        amount_field = self.driver.find_element(By.ID, "amount")
        amount_field.clear()
        amount_field.send_keys(amount)
        wait_field = self.driver.find_element(By.ID, "card-timeout")
        wait_field.clear()
        wait_field.send_keys(card_timeout)
        Select(self.driver.find_element(By.ID, "card")).select_by_visible_text(card)
        before = self.text("request-id")
        self.driver.find_element(By.ID, "pay").click()
        # The page shows the new payment once the server has answered its POST.
        self.wait(lambda: self.text("request-id") not in ("", "-", before), "the new payment is shown")
        self.id = self.text("request-id")
        return self.id

    def final_status(self, what):
        """The shown payment's final status, once its phase is final (the payment shown is the one just paid)."""
        self.wait(lambda: self.text("request-id") == self.id and self.text("phase") in ("finished", "failed")
                  and self.text("status") != "", what)
        return self.text("status")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--openapi")
    parser.add_argument("--ucube")
    parser.add_argument("--pair-code")
    args = parser.parse_args()

    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='ucube-chromium-')}"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    try:
        page = Page(driver, args.base)
        if args.pair_code:
            paired(driver, page, args.pair_code)
            return
        page.open()
        if "simulator" not in page.text("simulated"):
            fail("the page does not say the terminal is simulated")
        ok("the demo page loads and says its terminal is simulated")

        page.pay("visa-contact")
        status = page.final_status("the approved payment ends")
        receipt = page.text("receipt")
        if status != "APPROVED" or "476173******0010" not in receipt:
            fail(f"approved: status {status!r}, receipt {receipt!r}")
        driver.find_element(By.CSS_SELECTOR, "details summary").click()
        if '"APPROVED"' not in page.text("outcome"):
            fail("approved: the outcome is not shown")
        ok("an approved payment shows APPROVED, the receipt with the masked PAN and the outcome")

        page.pay("declined-aac", amount="3.00")
        status = page.final_status("the declined payment ends")
        if status != "DECLINED":
            fail(f"declined: status {status!r}")
        ok("a declined payment shows DECLINED")

        page.pay("card-timeout", amount="4.00", card_timeout="120")
        page.wait(lambda: page.text("state") != "-" and driver.find_element(By.ID, "cancel").is_enabled(),
                  "the payment waits for a card")
        driver.find_element(By.ID, "cancel").click()
        status = page.final_status("the cancelled payment ends")
        if status != "CANCELLED":
            fail(f"cancel: status {status!r}")
        ok("Cancel during the card wait ends the payment CANCELLED")

        page.pay("mc-two-apps", amount="5.00")
        page.wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#choices .choice")) == 2
                  and driver.find_element(By.ID, "prompt").is_displayed(), "the application choice is asked")
        labels = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#choices .choice")]
        if not (labels[0].startswith("1. MASTERCARD") and labels[1].startswith("2. MAESTRO")):
            fail(f"choice: the buttons are {labels}")
        driver.find_element(By.CSS_SELECTOR, '#choices .choice[data-number="2"]').click()
        status = page.final_status("the chosen payment ends")
        if status != "APPROVED" or "MAESTRO" not in page.text("receipt"):
            fail(f"choice: status {status!r}, receipt {page.text('receipt')!r}")
        ok("the application chosen on the page pays")

        # A reload in the middle: the page picks the payment up (its state, then the event stream) and goes on.
        request_id = page.pay("mc-two-apps", amount="6.00")
        page.wait(lambda: driver.find_element(By.ID, "prompt").is_displayed(), "the choice is asked before the reload")
        driver.refresh()
        page.wait(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true",
                  "the page is ready again")
        page.wait(lambda: page.text("request-id") == request_id and driver.find_element(By.ID, "prompt").is_displayed()
                  and page.text("phase") == "running", "the reloaded page shows the payment and its prompt")
        ok("after a reload the page shows the payment under way and its prompt")
        driver.find_element(By.CSS_SELECTOR, '#choices .choice[data-number="1"]').click()
        status = page.final_status("the payment ends after the reload")
        if status != "APPROVED" or "MASTERCARD" not in page.text("receipt"):
            fail(f"reload: status {status!r}, receipt {page.text('receipt')!r}")
        ok("after the reload the payment's end arrives from the event stream")

        page.pay("visa-contactless-signature", amount="7.00")
        status = page.final_status("the payment with a signature ends")
        if status != "APPROVED" or not driver.find_element(By.ID, "signature").is_displayed():
            fail(f"signature: status {status!r}, the signature notice is not shown")
        if "Cardholder signature" not in page.text("receipt"):
            fail(f"signature: the receipt has no signature line: {page.text('receipt')!r}")
        page.pay("visa-contact", amount="8.00")
        page.final_status("the payment after the signature ends")
        if driver.find_element(By.ID, "signature").is_displayed():
            fail("the signature notice stays for a payment that needs none")
        ok("a card that asks for the signature shows the notice and a receipt with the signature line")

        no_errors(driver)
    finally:
        driver.quit()


def no_errors(driver):
    # The answers the pairing test asks for (401 before pairing, 403 for the wrong code) are logged by Chromium as
    # failed resources: not errors of the page.
    expected = ("status of 401 (Unauthorized)", "/v1/pair - Failed to load resource: the server responded with a "
                "status of 403 (Forbidden)")
    severe = [entry for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE" and not any(text in entry["message"] for text in expected)]
    if severe:
        fail(f"the browser's console has errors: {severe}")
    ok("the browser's console has no error")


def paired(driver, page, code):
    """Outside the loopback: the page asks for the pairing code, then pays with the token it was given."""
    page.open(ready="pairing")
    if not driver.find_element(By.ID, "pairing").is_displayed() or driver.find_element(By.ID, "payment").is_displayed():
        fail("outside the loopback the page does not ask for the pairing code first")
    ok("outside the loopback the page asks for the pairing code")
    wrong = "000000" if code != "000000" else "111111"
    driver.find_element(By.ID, "pair-code").send_keys(wrong)
    driver.find_element(By.ID, "pair").click()
    page.wait(lambda: "not the code the terminal shows" in page.text("message"), "a wrong code is refused")
    if page.ready() != "pairing":
        fail("a wrong code paired the page")
    ok(f"a wrong code is refused: {page.text('message')!r}")
    field = driver.find_element(By.ID, "pair-code")
    field.clear()
    field.send_keys(code)
    driver.find_element(By.ID, "pair").click()
    page.wait(lambda: page.ready() == "true", "the page is paired and ready")
    ok("the code the terminal showed pairs the page")
    page.pay("visa-contact")
    status = page.final_status("the paired page's payment ends")
    if status != "APPROVED":
        fail(f"paired: status {status!r}")
    ok("the paired page pays, and its states arrive on the event stream with the token")
    page.open()
    ok("after a reload the page is still paired")
    no_errors(driver)


if __name__ == "__main__":
    main()
