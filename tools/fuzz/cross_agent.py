"""Cross-agent check: an agent must not reach another agent's orders (npm run fuzz --api agent).

Agent B is made here by the operator, serving the same methods as the demo agent, so it would
be eligible for any of merchant A's orders. A pay-in is assigned when the payer asks for the
details, a payout taken by its agent, and a dispute opened on a confirmed pay-in; for each, the
agent that owns it (the one its read answers 200) is X, the other Y. Y then reads, takes,
confirms, declines, reveals the account number of, uploads a receipt for and completes X's
orders, and reviews and downloads the receipt of X's dispute: every answer must be the 404 an
unknown id gets (ORDER_NOT_FOUND, DISPUTE_NOT_FOUND, docs/api/agent-openapi.json), none of Y's
lists may show them, and each order must be unchanged afterwards. Then each role's token on
the other role's routes: 403 FORBIDDEN. Exit code 1 names every breach.

Environment (set by tools/fuzz/run.mjs): FUZZ_BASE_URL, FUZZ_MERCHANT_ID / FUZZ_API_SECRET,
FUZZ_AGENT_TOKEN, FUZZ_OPERATOR_TOKEN.
"""

from __future__ import annotations

import argparse
import os
import sys
from urllib.parse import quote

import requests

from fuzz_http import CALLBACK_URL, PNG, Setup, available_settlement, backoffice, call, order_id
from signing import MerchantSignature

MERCHANT_ID = os.environ["FUZZ_MERCHANT_ID"]
A = MerchantSignature(MERCHANT_ID, os.environ["FUZZ_API_SECRET"])
OPERATOR = os.environ["FUZZ_OPERATOR_TOKEN"]
setup = Setup("cross-agent")


def second_agent() -> str:
    """Agent B, serving what the demo agent serves (read from the demo merchant's catalog, as deploy/local/start.mjs does)."""
    methods = setup.expect(backoffice(OPERATOR, "GET", f"/merchants/{quote(MERCHANT_ID, safe='')}/methods"), 200, "the demo merchant's methods")
    areas = {(m["method"], m["country"], m["currency"]) for m in methods["data"]}
    serves = [{"method": method, "country": country, "currency": currency} for method, country, currency in sorted(areas)]
    created = setup.expect(backoffice(OPERATOR, "POST", "/agents", {"display_name": "Fuzz agent B", "payment_details": "Card 2200 0000 0000 0001", "serves": serves}), 201, "agent B")
    return created["token"]


def order_path(order: str) -> str:
    return f"/agent/orders/{quote(MERCHANT_ID, safe='')}/{quote(order, safe='')}"


def owner_of(order: str, agents: dict[str, str]) -> str:
    """The name of the agent whose read of the order answers 200: the one it is assigned to."""
    owners = setup.wait_for(f"an agent owning {order}", lambda: [name for name, token in agents.items() if backoffice(token, "GET", order_path(order)).status_code == 200])
    if len(owners) != 1:
        raise SystemExit(f"[cross-agent] breach: {order} reads 200 for {owners}")
    return owners[0]


def create_orders(agents: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Merchant A's orders, each as (order_id, owning agent): a pay-in awaiting confirmation, a taken payout, and a confirmed pay-in (for the dispute)."""
    def payin(amount: int) -> tuple[str, str]:
        order = order_id("agent-payin")
        created = setup.expect(call(A, "POST", "/v2/payments/incoming", {"order_id": order, "amount": amount, "currency": "RUB", "country": "RU", "callback_url": CALLBACK_URL}), 201, "A's pay-in")
        # The payer asks for the payment details: an agent is assigned.
        requests.post(f"{created['redirect_url']}/details", allow_redirects=False, timeout=30)
        return order, owner_of(order, agents)

    disputed, disputed_owner = payin(5000)
    before = available_settlement(A, "RUB")
    setup.expect(backoffice(agents[disputed_owner], "POST", f"{order_path(disputed)}/confirm", {}), 200, "the owner's confirmation (which also funds A's payout)")
    setup.wait_for("the pay-in succeeding", lambda: call(A, "GET", f"/v2/payments/status/{disputed}").json().get("status") == "SUCCEEDED")
    setup.wait_for("the ledger crediting the pay-in", lambda: available_settlement(A, "RUB") > before)
    dispute = setup.expect(call(A, "POST", "/v2/disputes", {"order_id": disputed, "amount": 100, "comment": "cross-agent check"}), 201, "A's dispute")

    pending = payin(3000)
    payout = order_id("agent-payout")
    setup.expect(call(A, "POST", "/v2/payments/outgoing", {"order_id": payout, "amount": 1000, "currency": "RUB", "country": "RU", "method": "bank_card", "account_number": "4111 1111 1111 1111", "callback_url": CALLBACK_URL}), 201, "A's payout")
    setup.wait_for("agent A taking the payout", lambda: backoffice(agents["A"], "POST", f"{order_path(payout)}/take", {}).status_code == 200)
    receipt = setup.expect(backoffice(agents["A"], "POST", f"{order_path(payout)}/receipts", PNG, "image/png"), 201, "agent A's payout receipt")
    return {"pay-in": pending, "payout": (payout, "A"), "dispute": (dispute["dispute_id"], disputed_owner), "receipt": (receipt["receipt_id"], "A")}


def probes(orders: dict[str, tuple[str, str]]) -> list[tuple[str, str, str, dict | bytes | None, str]]:
    """Every request by the non-owner: (kind, method, path, body, content type). Completing names agent A's real receipt."""
    out = []
    receipt_id = orders["receipt"][0]
    for kind in ("pay-in", "payout"):
        path = order_path(orders[kind][0])
        out += [
            (kind, "GET", path, None, "application/json"),
            (kind, "POST", f"{path}/take", {}, "application/json"),
            (kind, "POST", f"{path}/confirm", {}, "application/json"),
            (kind, "POST", f"{path}/decline", {"reason": "cross-agent check"}, "application/json"),
            (kind, "POST", f"{path}/account-number", None, "application/json"),
            (kind, "POST", f"{path}/receipts", PNG, "image/png"),
            (kind, "POST", f"{path}/complete", {"receipt_id": receipt_id}, "application/json"),
        ]
    dispute = f"/agent/disputes/{quote(MERCHANT_ID, safe='')}/{quote(orders['dispute'][0], safe='')}"
    out += [("dispute", "POST", f"{dispute}/review", {"decision": "ACCEPTED", "reason": "cross-agent check"}, "application/json"), ("dispute", "GET", f"{dispute}/receipt", None, "application/json")]
    return out


def snapshot(token: str, order: str) -> dict:
    view = backoffice(token, "GET", order_path(order)).json()
    return {key: view.get(key) for key in ("status", "agent", "agent_id", "updated_at", "version")}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", help="write the result lines here, for the run's markdown summary")
    args = parser.parse_args()

    agents = {"A": os.environ["FUZZ_AGENT_TOKEN"]}
    agents["B"] = second_agent()
    orders = create_orders(agents)
    other = {"A": "B", "B": "A"}
    before = {kind: snapshot(agents[owner], order) for kind, (order, owner) in orders.items() if kind in ("pay-in", "payout")}
    lines, failed = [], 0
    for kind, method, path, body, content_type in probes(orders):
        intruder = other[orders[kind][1]]
        answer = backoffice(agents[intruder], method, path, body, content_type)
        code = answer.json().get("error", {}).get("code") if answer.content and answer.headers.get("content-type", "").startswith("application/json") else None
        passed = answer.status_code == 404
        failed += 0 if passed else 1
        lines.append(f"{'ok  ' if passed else 'FAIL'} agent {intruder} {method} {path} ({kind} of agent {orders[kind][1]}): {answer.status_code} {code or ''}")
    for kind, (order, owner) in orders.items():
        if kind not in ("pay-in", "payout"):
            continue
        for scope in ("assigned", "available"):
            text = backoffice(agents[other[owner]], "GET", f"/agent/orders?scope={scope}").text
            if order in text:
                failed += 1
                lines.append(f"FAIL agent {other[owner]}'s {scope} list shows the {kind} {order} of agent {owner}")
        if snapshot(agents[owner], order) != before[kind]:
            failed += 1
            lines.append(f"FAIL the {kind} {order} changed: {before[kind]} -> {snapshot(agents[owner], order)}")
    cross_role = [
        ("agent token on an operator route", agents["A"], "GET", f"/orders/{quote(MERCHANT_ID, safe='')}/{quote(orders['payout'][0], safe='')}"),
        ("agent token on an operator route", agents["A"], "GET", f"/merchants/{quote(MERCHANT_ID, safe='')}/balances"),
        ("operator token on an agent route", OPERATOR, "GET", order_path(orders["payout"][0])),
        ("operator token on an agent route", OPERATOR, "POST", f"{order_path(orders['pay-in'][0])}/confirm"),
    ]
    for what, token, method, path in cross_role:
        answer = backoffice(token, method, path, {} if method == "POST" else None)
        passed = answer.status_code == 403 and answer.json().get("error", {}).get("code") == "FORBIDDEN"
        failed += 0 if passed else 1
        lines.append(f"{'ok  ' if passed else 'FAIL'} {what}: {method} {path}: {answer.status_code}")
    for line in lines:
        print(f"[cross-agent] {line}")
    print(f"[cross-agent] {len(lines)} checks of one agent on another's orders and of each role on the other's routes: {failed or 'no'} breach{'es' if failed != 1 else ''}")
    if args.lines:
        with open(args.lines, "w", encoding="utf-8") as handle:
            handle.write("\n".join(["## Cross-agent", "", "```", *lines, "```", "", f"Breaches: {failed}", ""]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
