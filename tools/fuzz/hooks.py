"""Schemathesis hooks for the merchant API: every generated request is signed as merchant A.

Loaded by tools/fuzz/run.mjs through SCHEMATHESIS_HOOKS=hooks (with tools/fuzz on PYTHONPATH).
The credentials come from FUZZ_MERCHANT_ID and FUZZ_API_SECRET.

The signature is added by a requests auth object (signing.MerchantSignature), which requests
calls with the prepared request: the path and body it signs are the bytes that go on the wire,
after Schemathesis serialized the generated body, never a re-serialization of it.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import strategies as st
from schemathesis.generation.modes import GenerationMode

import fixtures
from signing import MerchantSignature

merchant = MerchantSignature(os.environ["FUZZ_MERCHANT_ID"], os.environ["FUZZ_API_SECRET"])


@schemathesis.hook
def before_call(context, case, kwargs):
    kwargs["auth"] = merchant
    if case.operation.definition.raw.get("operationId") == "openDispute":
        with_disputable_payin(case)


def with_disputable_payin(case):
    """Every other valid-by-the-description openDispute case names a pay-in an agent took.

    Here rather than in flatmap_body: the coverage phase builds its cases from the description's
    example (order A-1001, which no agent took) without strategies, so only this hook reaches them.
    A pay-in takes one dispute; the next ones cycle through the pool (fixtures.py).
    """
    global dispute_cases
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or not isinstance(case.body, dict):
        return
    dispute_cases += 1
    if dispute_cases % 2 == 1:
        case.body = {**case.body, "order_id": DISPUTABLE_PAYINS[(dispute_cases // 2) % len(DISPUTABLE_PAYINS)]}


@schemathesis.hook
def after_call(context, case, response):
    # A successful rotation answers the new secret, and the old one stops verifying after a
    # grace period: sign with the new one from now on, or later cases fail as INVALID_SIGNATURE.
    if case.operation.definition.raw.get("operationId") == "rotateApiSecret" and response.status_code == 201:
        merchant.secret = response.json()["api_secret"]


# Values the demo merchant's catalog accepts (deploy/local/start.mjs): without them nearly every
# generated create is refused (currency, country and method are per merchant, amounts within the
# method's limits, a withdrawal needs a balance and an address with a valid checksum, a dispute a
# pay-in an agent took, see with_disputable_payin), no order is ever made, and the stateful phase has no id to follow its
# links with. Half the bodies of these operations get them, each with a fresh order_id (generated
# ids repeat across cases and would only meet 409 DUPLICATE_ORDER); the rest stay as generated,
# so the refusals keep being fuzzed too. openapi.json states every rule it can (patterns, enums,
# bounds); these are the ones it can only describe. `metadata` keys are 1 to 40 characters without
# control characters, which OpenAPI 3.0 cannot say of an object's keys; `return_url` is left out,
# so it is the shop's own (none) rather than a generated URL the allow-list may refuse.
REALISTIC_METADATA = {"metadata": {"cart_id": "C-7731", "customer_id": "U-102"}}
REALISTIC_FIELDS = {
    "createIncomingPayment": {"currency": "RUB", "country": "RU", "method": "bank_card", "callback_url": "https://shop.example/callbacks", **REALISTIC_METADATA},
    "createOutgoingPayment": {"currency": "RUB", "country": "RU", "method": "bank_card", "account_number": "4111 1111 1111 1111", "callback_url": "https://shop.example/callbacks", **REALISTIC_METADATA},
    "createWithdrawal": {"currency": "USDT-TRC20", "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", **REALISTIC_METADATA},
}
REALISTIC_AMOUNTS = {
    "createIncomingPayment": st.integers(min_value=100, max_value=100_000),
    # The demo payout method's minimum is 1,000 RUB; fixtures.py leaves some 58,000 RUB to pay out.
    "createOutgoingPayment": st.integers(min_value=1_000, max_value=2_000),
    # USDT-TRC20's minimum is 10; fixtures.py converts some 432 USDT.
    "createWithdrawal": st.integers(min_value=10, max_value=12),
}
# Made before the first case: Schemathesis imports this module before it sends anything.
DISPUTABLE_PAYINS = fixtures.prepare()
dispute_cases = 0
fresh_order_ids = st.uuids().map(lambda value: f"fuzz-{value.hex[:20]}")


@schemathesis.hook
def flatmap_body(context, body):
    operation_id = context.operation.definition.raw.get("operationId") if context.operation else None
    if not isinstance(body, dict):
        return st.just(body)
    fields = REALISTIC_FIELDS.get(operation_id)
    if fields is None:
        return st.just(body)
    realistic = st.tuples(REALISTIC_AMOUNTS[operation_id], fresh_order_ids).map(lambda pair: {**body, **fields, "amount": pair[0], "order_id": pair[1]})
    return st.one_of(st.just(body), realistic)
