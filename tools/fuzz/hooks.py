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

from signing import MerchantSignature

merchant = MerchantSignature(os.environ["FUZZ_MERCHANT_ID"], os.environ["FUZZ_API_SECRET"])


@schemathesis.hook
def before_call(context, case, kwargs):
    kwargs["auth"] = merchant


@schemathesis.hook
def after_call(context, case, response):
    # A successful rotation answers the new secret, and the old one stops verifying after a
    # grace period: sign with the new one from now on, or later cases fail as INVALID_SIGNATURE.
    if case.operation.definition.raw.get("operationId") == "rotateApiSecret" and response.status_code == 201:
        merchant.secret = response.json()["api_secret"]


# Values the demo merchant's catalog accepts (deploy/local/start.mjs): without them nearly every
# generated create is refused by validation (currency, country and method are per merchant, so
# the description cannot enumerate them), no order is ever made, and the stateful phase has no
# id to follow its links with. Half the bodies of these operations get them; the rest stay as
# generated, so the refusals keep being fuzzed too.
REALISTIC_FIELDS = {
    "createIncomingPayment": {"currency": "RUB", "country": "RU", "method": "bank_card", "callback_url": "https://shop.example/callbacks"},
    "createOutgoingPayment": {"currency": "RUB", "country": "RU", "method": "bank_card", "account_number": "4111 1111 1111 1111", "callback_url": "https://shop.example/callbacks"},
}


@schemathesis.hook
def flatmap_body(context, body):
    fields = REALISTIC_FIELDS.get(context.operation.definition.raw.get("operationId") if context.operation else None)
    if fields is None or not isinstance(body, dict):
        return st.just(body)
    realistic = st.integers(min_value=100, max_value=100_000).map(lambda amount: {**body, **fields, "amount": amount})
    return st.one_of(st.just(body), realistic)
