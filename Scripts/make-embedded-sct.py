#!/usr/bin/env python3
"""Prints, as hex, the value of an embedded-SCT-list extension (1.3.6.1.4.1.11129.2.4.2, RFC 6962 §3.3)
for a certificate to be issued: one SCT per log key given, each signed by that private test log over a
precert_entry made of the issuer's key hash and the TBSCertificate of TWIN.pem, with the timestamp given.
TWIN.pem must be the certificate to be issued without this extension (same serial, dates, key and
extensions in the same order), so that its TBSCertificate is what a verifier rebuilds by removing the
extension (what OpenSSL's CT code does). Used by Scripts/make-pinning-fixtures.sh; needs python3 and
openssl.

usage: make-embedded-sct.py TWIN.pem ISSUER.pem TIMESTAMP_MS LOG.key [LOG.key ...]
"""
import hashlib
import struct
import subprocess
import sys


def run(arguments, data=None):
    return subprocess.run(arguments, input=data, check=True, capture_output=True).stdout


def der_element(data, offset):
    """The (start, end) of the DER element at `offset`, header included."""
    length = data[offset + 1]
    header = 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[offset + 2:offset + 2 + count], "big")
        header += count
    return offset, offset + header + length


def tbs_certificate(certificate_der):
    inner = 2 + (certificate_der[1] & 0x7F if certificate_der[1] & 0x80 else 0)
    start, end = der_element(certificate_der, inner)
    return certificate_der[start:end]


def der_octet_string(payload):
    length = len(payload)
    if length < 0x80:
        return bytes([0x04, length]) + payload
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([0x04, 0x80 | len(encoded)]) + encoded + payload


def sct(log_key, issuer_key_hash, tbs, timestamp):
    log_id = hashlib.sha256(run(["openssl", "pkey", "-in", log_key, "-pubout", "-outform", "der"])).digest()
    # digitally-signed struct: v1, certificate_timestamp, timestamp, precert_entry, issuer key hash, TBS
    signed = struct.pack(">BBQH", 0, 0, timestamp, 1) + issuer_key_hash + struct.pack(">I", len(tbs))[1:] + tbs
    signed += struct.pack(">H", 0)
    signature = run(["openssl", "dgst", "-sha256", "-sign", log_key], signed)
    return (struct.pack(">B", 0) + log_id + struct.pack(">QH", timestamp, 0)
            + struct.pack(">BBH", 4, 3, len(signature)) + signature)


def main():
    twin, issuer, timestamp, log_keys = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    tbs = tbs_certificate(run(["openssl", "x509", "-in", twin, "-outform", "der"]))
    issuer_spki = run(["openssl", "x509", "-in", issuer, "-noout", "-pubkey"])
    issuer_key_hash = hashlib.sha256(run(["openssl", "pkey", "-pubin", "-outform", "der"], issuer_spki)).digest()
    entries = b"".join(struct.pack(">H", len(s)) + s
                       for s in (sct(k, issuer_key_hash, tbs, timestamp) for k in log_keys))
    print(der_octet_string(struct.pack(">H", len(entries)) + entries).hex())


if __name__ == "__main__":
    main()
