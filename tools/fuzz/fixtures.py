"""Merchant A's state the merchant API's fuzzing needs, made once before Schemathesis' first case.

A withdrawal needs a USDT balance and a dispute a pay-in a payment agent took: no request of
the merchant API makes either, so without them every generated withdrawal and dispute is refused
(400) and the run cannot tell a description looser than the server from missing data. Made as
cross_tenant.py makes its resources: a pay-in the demo agent confirms funds A, the demo operator
converts RUB to USDT, and pay-ins whose payer asked for the details get an agent.

Environment (set by tools/fuzz/run.mjs): FUZZ_BASE_URL, FUZZ_MERCHANT_ID, FUZZ_API_SECRET,
FUZZ_AGENT_TOKEN, FUZZ_OPERATOR_TOKEN.
"""

from __future__ import annotations

import os
import uuid
from urllib.parse import quote

import requests

from fuzz_http import CALLBACK_URL, Setup, available_settlement, backoffice, call, order_id
from signing import MerchantSignature

# Disputes the fuzzer may open: each pay-in takes one (a second is refused while the first is open).
DISPUTABLE_PAYINS = 16
setup = Setup("fuzz fixtures")


def _payin(merchant: MerchantSignature, amount: int) -> tuple[str, dict]:
    payin = order_id("fixture")
    created = setup.expect(call(merchant, "POST", "/v2/payments/incoming", {"order_id": payin, "amount": amount, "currency": "RUB", "country": "RU", "callback_url": CALLBACK_URL}), 201, "a fixture pay-in")
    # The payer asks for the payment details: an agent is assigned.
    requests.post(f"{created['redirect_url']}/details", allow_redirects=False, timeout=30)
    return payin, created


def prepare() -> list[str]:
    """A USDT balance for withdrawals; answers pay-ins an agent took, for disputes."""
    merchant_id = os.environ["FUZZ_MERCHANT_ID"]
    merchant = MerchantSignature(merchant_id, os.environ["FUZZ_API_SECRET"])
    funding, _ = _payin(merchant, 100_000)
    path = f"/agent/orders/{quote(merchant_id, safe='')}/{quote(funding, safe='')}/confirm"
    setup.expect(backoffice(os.environ["FUZZ_AGENT_TOKEN"], "POST", path, {}), 200, "the agent's confirmation of the funding pay-in")
    setup.wait_for("the funding pay-in succeeding", lambda: call(merchant, "GET", f"/v2/payments/status/{funding}").json().get("status") == "SUCCEEDED")
    # The conversion is refused until the ledger's credit shows in the balance.
    setup.wait_for("the ledger crediting the funding pay-in", lambda: available_settlement(merchant, "RUB") >= 40_000)
    conversion = {"conversion_id": str(uuid.uuid4()), "from_currency": "RUB", "to_currency": "USDT", "amount": 40_000, "rate": "0.0108", "reason": "fuzz fixtures"}
    setup.expect(backoffice(os.environ["FUZZ_OPERATOR_TOKEN"], "POST", f"/merchants/{quote(merchant_id, safe='')}/conversions", conversion), 201, "the operator's RUB to USDT conversion")
    # Above the description's example amount (1500.5), which a dispute may name as what the payer paid.
    return [_payin(merchant, 5_000)[0] for _ in range(DISPUTABLE_PAYINS)]
