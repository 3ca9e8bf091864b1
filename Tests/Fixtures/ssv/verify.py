#!/usr/bin/env python3
"""Verifies an SSV callback as a publisher's server would, with Python's `cryptography` and no
code of the daemon: reads the verifier key set (Google's JSON shape), takes the callback's raw
query string, checks the ECDSA P-256 / SHA-256 signature over what precedes `&signature=` with
the key `key_id` names. Prints "valid" or "invalid: why"; exit 0 either way, 2 on bad input.

usage: verify.py KEYS.json RAW_QUERY"""
import base64
import json
import sys
from urllib.parse import parse_qs, unquote

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec


def main():
    if len(sys.argv) != 3:
        sys.exit(2)
    keys = {entry["keyId"]: entry for entry in json.load(open(sys.argv[1]))["keys"]}
    # As Tink's RewardedAdsVerifier: the query percent-decoded (java.net.URI.getQuery()), the
    # signed data all before "&signature=".
    raw = sys.argv[2]
    query = unquote(raw)
    cut = query.find("signature=")
    if cut <= 0 or query[cut - 1] != "&":
        print("invalid: no signature")
        return
    data = query[:cut - 1].encode()
    tail = parse_qs(query[cut:])
    if list(parse_qs(query[cut:], keep_blank_values=True)) != ["signature", "key_id"]:
        print("invalid: signature and key_id are not the last two parameters")
        return
    signature = base64.urlsafe_b64decode(tail["signature"][0] + "=" * (-len(tail["signature"][0]) % 4))
    entry = keys.get(int(tail["key_id"][0]))
    if entry is None:
        print("invalid: unknown key_id")
        return
    public_key = serialization.load_pem_public_key(entry["pem"].encode())
    # The base64 form is the same key, as Tink reads it.
    assert serialization.load_der_public_key(base64.b64decode(entry["base64"])).public_numbers() == public_key.public_numbers()
    try:
        public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
        print("valid")
    except InvalidSignature:
        print("invalid: signature")


if __name__ == "__main__":
    main()
