"""Schemathesis hooks for the agent and back-office APIs (tools/fuzz/run.mjs --api agent|backoffice).

Loaded through SCHEMATHESIS_HOOKS=bearer_hooks (with tools/fuzz on PYTHONPATH). The token is not
set here: run.mjs passes `--header "Authorization: Bearer <token>"` (the demo agent's for the
agent API, the demo operator's for the back-office API), so no request is refused for its
credentials alone.

Half of the generated path parameters that name a merchant get merchant A's id, and for the
agent API a third of those name an order the agent has or could take (read once, at start, from
its lists: the payouts the merchant API's run created): random ids all end in the same 404, and
the handlers behind it would never run.
"""

from __future__ import annotations

import os

import requests
import schemathesis
from hypothesis import strategies as st

MERCHANT_ID = os.environ["FUZZ_MERCHANT_ID"]
TOKEN = os.environ["FUZZ_BEARER_TOKEN"]


def agent_order_ids() -> list[str]:
    """The order ids of merchant A in the agent's lists; none for an operator token (403) or when there are none."""
    ids: set[str] = set()
    for scope in ("assigned", "available"):
        answer = requests.get(f"{os.environ['FUZZ_BASE_URL']}/backoffice/v1/agent/orders", params={"scope": scope, "limit": 100}, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
        if answer.status_code == 200:
            ids.update(order["order_id"] for order in answer.json().get("data", []) if order.get("merchant_id", MERCHANT_ID) == MERCHANT_ID)
    return sorted(ids)


KNOWN_ORDER_IDS = agent_order_ids()


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    if not isinstance(path_parameters, dict) or "merchantId" not in path_parameters:
        return st.just(path_parameters)
    ours = {**path_parameters, "merchantId": MERCHANT_ID}
    if "orderId" not in path_parameters or not KNOWN_ORDER_IDS:
        return st.one_of(st.just(path_parameters), st.just(ours))
    known = st.sampled_from(KNOWN_ORDER_IDS).map(lambda order_id: {**ours, "orderId": order_id})
    return st.one_of(st.just(path_parameters), st.just(ours), known)



# Schemathesis feeds ids it saw in answers back into path parameters: listOperatorCredentials
# shows the fuzzer's own credential, and revoking it would answer every later request
# 401 CREDENTIAL_REVOKED. That one id is swapped for a well-formed unknown one (a 404 like any other).
OWN_CREDENTIAL_ID = os.environ.get("FUZZ_OPERATOR_CREDENTIAL_ID")
UNKNOWN_CREDENTIAL_ID = "cred_" + "0" * 24


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    if isinstance(path_parameters, dict) and OWN_CREDENTIAL_ID and path_parameters.get("credentialId") == OWN_CREDENTIAL_ID:
        return {**path_parameters, "credentialId": UNKNOWN_CREDENTIAL_ID}
    return path_parameters
