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
