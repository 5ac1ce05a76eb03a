"""HTTP helpers of the fuzzer's own checks (cross_tenant.py, cross_agent.py): merchant calls
signed as the docs say, back-office calls with a Bearer token, and setup steps that must succeed.

FUZZ_BASE_URL is the gateway (set by tools/fuzz/run.mjs).
"""

from __future__ import annotations

import json
import os
import time
import uuid

import requests

from signing import MerchantSignature

BASE = os.environ["FUZZ_BASE_URL"]
CALLBACK_URL = "https://shop.example/callbacks"
PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + b"\x00" * 64


def call(merchant: MerchantSignature, method: str, path: str, body: dict | None = None) -> requests.Response:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"content-type": "application/json"} if data is not None else {}
    return requests.request(method, BASE + path, data=data, headers=headers, auth=merchant, timeout=30)


def backoffice(token: str, method: str, path: str, body: dict | bytes | None = None, content_type: str = "application/json") -> requests.Response:
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    headers = {"authorization": f"Bearer {token}", **({"content-type": content_type} if data is not None else {})}
    if isinstance(body, bytes):
        headers["x-file-name"] = "receipt.png"
    return requests.request(method, f"{BASE}/backoffice/v1{path}", data=data, headers=headers, timeout=30)


def available_settlement(merchant: MerchantSignature, currency: str) -> float:
    """The merchant's available settlement balance in `currency`, 0 before money has moved in it.

    The ledger credits a pay-in when its success reaches it, a moment after payments answers
    SUCCEEDED: a step that spends the money waits for this to rise first.
    """
    settlement = call(merchant, "GET", "/v2/merchant/balances").json().get("settlement", [])
    return next((entry["available"] for entry in settlement if entry["currency"] == currency), 0)


class Setup:
    """Setup steps of one check: a step that does not happen is a setup failure (exit with its answer), never a pass."""

    def __init__(self, label: str):
        self.label = label

    def expect(self, response: requests.Response, status: int, what: str) -> dict:
        if response.status_code != status:
            raise SystemExit(f"[{self.label}] setup failed: {what} answered {response.status_code}, expected {status}: {response.text[:500]}")
        return response.json() if response.content else {}

    def wait_for(self, what: str, probe, timeout: float = 30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = probe()
            if value:
                return value
            time.sleep(0.3)
        raise SystemExit(f"[{self.label}] setup failed: {what} did not happen within {timeout:.0f} s")


def order_id(kind: str) -> str:
    return f"fuzz-{kind}-{uuid.uuid4().hex[:12]}"
