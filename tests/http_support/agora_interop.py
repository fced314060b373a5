"""Calls a tnsai platform with the Agora protocol's own Python library (0.2.0).

Usage: python agora_interop.py <platform base URL>

Expects the agents of `cargo run --example http_serve`: billing-agent (processOrder,
refund) and analyst-agent (a language model). Exits non-zero on the first mismatch.
"""

import json
import sys

import requests
from agora.sender.components.transporter import SimpleSenderTransporter
from agora.utils import compute_hash, download_and_verify_protocol, extract_metadata

base = sys.argv[1].rstrip("/")
transporter = SimpleSenderTransporter()


def check(condition, what):
    if not condition:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok: {what}")


# Discovery: every hash in /.wellknown is the library's hash of a document its sources hold.
wellknown = requests.get(f"{base}/.wellknown").json()
for protocol_hash, sources in wellknown.items():
    for source in sources:
        document = download_and_verify_protocol(protocol_hash, source)
        check(document is not None, f"{source[:60]}... holds {protocol_hash}")
        check(compute_hash(document) == protocol_hash, f"compute_hash matches {protocol_hash}")
        extract_metadata(document)

billing = requests.get(f"{base}/agents/billing-agent").json()
order_hash = billing["protocols"]["processOrder"]
order_sources = wellknown[order_hash]
metadata = extract_metadata(download_and_verify_protocol(order_hash, order_sources[0]))
check(metadata["name"] == "processOrder", "the document is named after the action")
check(metadata["multiround"] is False, "actions are single-round")

# One round under the action's protocol.
conversation = transporter.new_conversation(billing["url"], False, order_hash, order_sources)
answer = conversation(json.dumps({"orderId": "py-1", "amountCents": 250}))
check(answer["status"] == "success", f"processOrder answered {answer}")
body = json.loads(answer["body"])
check(body["ok"] is True and body["result"]["orderId"] == "py-1", f"result {body}")

# The action's own error is a success whose body says so.
answer = conversation(json.dumps({"orderId": "py-2", "amountCents": 0}))
body = json.loads(answer["body"])
check(answer["status"] == "success" and body["ok"] is False, f"own error {body}")
check(body["code"] == "action_failed", "with its code")

# Natural language, multi-round (what the library's sender does without a protocol).
analyst = f"{base}/agents/analyst-agent"
with transporter.new_conversation(analyst, True, None, []) as talk:
    first = talk("Hello there")
    check(first["status"] == "success", f"first turn {first}")
    second = talk("Please summarize the quarterly report")
    check("revenue" in second["body"], f"second turn {second}")
print("ok: conversation closed")

# A protocol the agent does not implement, with no source: rejected, body present.
conversation = transporter.new_conversation(billing["url"], False, "bm8gc3VjaCBwcm90b2NvbA==", [])
answer = conversation("{}")
check(answer["status"] == "rejected", f"unknown protocol {answer}")
check(isinstance(answer["body"], str) and answer["body"], "rejection has a body")
print("all Agora interop checks passed")
