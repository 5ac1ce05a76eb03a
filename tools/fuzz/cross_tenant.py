"""Cross-tenant check: merchant B must not reach anything merchant A created (npm run fuzz).

Merchant A creates one of each resource the API names by id: a pay-in (taken and confirmed by
the demo agent, which funds A), a dispute on it, a payout with an agent's receipt, a
withdrawal (after an operator's RUB->USDT conversion) and a test webhook delivery. A reads each
one back (so the ids are real), then merchant B asks for each by id, reads it, cancels it,
disputes it, redelivers it: every answer must be the 404 the docs give an unknown id
(docs/api/endpoints.md), and none of B's lists may show them. Exit code 1 names every breach.

Environment (set by tools/fuzz/run.mjs): FUZZ_BASE_URL, FUZZ_MERCHANT_ID / FUZZ_API_SECRET (A),
FUZZ_OTHER_MERCHANT_ID / FUZZ_OTHER_API_SECRET (B), FUZZ_AGENT_TOKEN, FUZZ_OPERATOR_TOKEN.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from urllib.parse import quote

import requests

from fuzz_http import CALLBACK_URL, PNG, Setup, available_settlement, backoffice, call, order_id
from signing import MerchantSignature

A = MerchantSignature(os.environ["FUZZ_MERCHANT_ID"], os.environ["FUZZ_API_SECRET"])
B = MerchantSignature(os.environ["FUZZ_OTHER_MERCHANT_ID"], os.environ["FUZZ_OTHER_API_SECRET"])
setup = Setup("cross-tenant")
expect, wait_for = setup.expect, setup.wait_for


def create_resources(agent_token: str, operator_token: str) -> dict[str, str]:
    """A's resources, by kind; what cannot be created is a setup failure, not a pass."""
    merchant_a = os.environ["FUZZ_MERCHANT_ID"]
    ids: dict[str, str] = {}

    payin = order_id("payin")
    created = expect(call(A, "POST", "/v2/payments/incoming", {"order_id": payin, "amount": 5000, "currency": "RUB", "country": "RU", "callback_url": CALLBACK_URL}), 201, "A's pay-in")
    # The payer asks for the payment details (an agent is assigned), the agent confirms the payment.
    requests.post(f"{created['redirect_url']}/details", allow_redirects=False, timeout=30)
    order_path = f"/agent/orders/{quote(merchant_a, safe='')}/{quote(payin, safe='')}"
    before = available_settlement(A, "RUB")
    expect(backoffice(agent_token, "POST", f"{order_path}/confirm", {}), 200, "the agent's confirmation of A's pay-in")
    wait_for("A's pay-in succeeding", lambda: call(A, "GET", f"/v2/payments/status/{payin}").json().get("status") == "SUCCEEDED")
    # The payout and the conversion below spend it: the ledger's credit first.
    wait_for("the ledger crediting A's pay-in", lambda: available_settlement(A, "RUB") > before)
    ids["pay-in order_id"] = payin

    dispute = expect(call(A, "POST", "/v2/disputes", {"order_id": payin, "amount": 100, "comment": "cross-tenant check"}), 201, "A's dispute")
    ids["dispute_id"] = dispute["dispute_id"]

    payout = order_id("payout")
    expect(call(A, "POST", "/v2/payments/outgoing", {"order_id": payout, "amount": 1000, "currency": "RUB", "country": "RU", "method": "bank_card", "account_number": "4111 1111 1111 1111", "callback_url": CALLBACK_URL}), 201, "A's payout")
    payout_path = f"/agent/orders/{quote(merchant_a, safe='')}/{quote(payout, safe='')}"
    wait_for("the agent taking A's payout", lambda: backoffice(agent_token, "POST", f"{payout_path}/take", {}).status_code == 200)
    receipt = expect(backoffice(agent_token, "POST", f"{payout_path}/receipts", PNG, "image/png"), 201, "the agent's payout receipt")
    expect(backoffice(agent_token, "POST", f"{payout_path}/complete", {"receipt_id": receipt["receipt_id"]}), 200, "the agent completing A's payout")
    receipts = wait_for("A's payout receipt", lambda: call(A, "GET", f"/v2/payments/{payout}/receipts").json().get("data"))
    ids["payout order_id"] = payout
    ids["receipt_id"] = receipts[0]["receipt_id"]

    conversion = {"conversion_id": str(uuid.uuid4()), "from_currency": "RUB", "to_currency": "USDT", "amount": 2000, "rate": "0.0108", "reason": "cross-tenant check"}
    expect(backoffice(operator_token, "POST", f"/merchants/{quote(merchant_a, safe='')}/conversions", conversion), 201, "the operator's conversion for A")
    withdrawal = order_id("withdrawal")
    expect(call(A, "POST", "/v2/merchant/withdrawals", {"order_id": withdrawal, "amount": 10, "currency": "USDT-TRC20", "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}), 201, "A's withdrawal")
    ids["withdrawal order_id"] = withdrawal

    delivery = expect(call(A, "POST", "/v2/webhooks/test", {"url": CALLBACK_URL}), 202, "A's test webhook")
    ids["webhook delivery_id"] = delivery["delivery_id"]
    return ids


def probes(ids: dict[str, str]) -> list[tuple[str, str, dict | None]]:
    """Every request by id that B could try: method, path, body."""
    payin, payout = quote(ids["pay-in order_id"], safe=""), quote(ids["payout order_id"], safe="")
    dispute, receipt = quote(ids["dispute_id"], safe=""), quote(ids["receipt_id"], safe="")
    withdrawal, delivery = quote(ids["withdrawal order_id"], safe=""), quote(ids["webhook delivery_id"], safe="")
    return [
        ("GET", f"/v2/payments/status/{payin}", None),
        ("GET", f"/v2/payments/status/{payout}", None),
        ("POST", f"/v2/payments/{payin}/cancel", {}),
        ("POST", f"/v2/payments/{payout}/cancel", {}),
        ("GET", f"/v2/payments/{payout}/receipts", None),
        ("GET", f"/v2/payments/{payout}/receipts/{receipt}", None),
        ("POST", "/v2/disputes", {"order_id": ids["pay-in order_id"]}),
        ("GET", f"/v2/disputes/{dispute}", None),
        ("GET", f"/v2/merchant/withdrawals/{withdrawal}", None),
        ("GET", f"/v2/webhooks/deliveries/{delivery}", None),
        ("POST", f"/v2/webhooks/deliveries/{delivery}/redeliver", None),
    ]


LISTS = [("POST", "/v2/payments/incoming/list", {}), ("POST", "/v2/payments/outgoing/list", {}), ("POST", "/v2/disputes/list", {}), ("POST", "/v2/merchant/withdrawals/list", {}), ("GET", "/v2/webhooks/deliveries", None)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", help="write the result lines here, for the run's markdown summary")
    args = parser.parse_args()

    ids = create_resources(os.environ["FUZZ_AGENT_TOKEN"], os.environ["FUZZ_OPERATOR_TOKEN"])
    results = []
    for method, path, body in probes(ids):
        # Reads by A first: a 404 for B only means something if the id exists for its owner.
        owner = call(A, method, path, body).status_code if method == "GET" else None
        other = call(B, method, path, body)
        passed = other.status_code == 404 and (owner is None or owner == 200)
        error = other.json().get("error", {}) if other.content else {}
        results.append((method, path, owner, other.status_code, f"{error.get('code', '')} {json.dumps(error.get('details'))}" if not passed else error.get("code"), passed))
    leaked = []
    for method, path, body in LISTS:
        text = call(B, method, path, body).text
        leaked += [f"{method} {path} shows {kind} {value}" for kind, value in ids.items() if value in text]

    lines = [f"{'ok  ' if passed else 'FAIL'} B {method} {path}: {status} {code or ''}" + (f" (A: {owner})" if owner else "") for method, path, owner, status, code, passed in results]
    lines += [f"FAIL {leak}" for leak in leaked]
    for line in lines:
        print(f"[cross-tenant] {line}")
    failed = sum(1 for *_, passed in results if not passed) + len(leaked)
    print(f"[cross-tenant] {len(results)} requests by B on A's ids and {len(LISTS)} of B's lists: {failed or 'no'} breach{'es' if failed != 1 else ''}")
    if args.lines:
        with open(args.lines, "w", encoding="utf-8") as handle:
            resources = "A's resources: " + ", ".join(f"{kind} `{value}`" for kind, value in ids.items())
            handle.write("\n".join(["## Cross-tenant", "", resources, "", "```", *lines, "```", "", f"Breaches: {failed}", ""]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
