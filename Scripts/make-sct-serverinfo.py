#!/usr/bin/env python3
"""Writes a SERVERINFOV2 PEM for `openssl s_server -serverinfo` whose signed_certificate_timestamp
extension (RFC 6962 §3.3) carries one SCT per log key given, each signed by that private test log over
the leaf (an x509_entry), with the timestamp given. The SCTs are served in TLS 1.2's ServerHello and
TLS 1.3's Certificate message. Used by Scripts/make-pinning-fixtures.sh; needs python3 and openssl.

usage: make-sct-serverinfo.py LEAF.pem OUT.pem TIMESTAMP_MS LOG.key [LOG.key ...]
"""
import base64
import hashlib
import struct
import subprocess
import sys


def run(arguments, data=None):
    return subprocess.run(arguments, input=data, check=True, capture_output=True).stdout


def sct(log_key, leaf_der, timestamp):
    log_id = hashlib.sha256(run(["openssl", "pkey", "-in", log_key, "-pubout", "-outform", "der"])).digest()
    # digitally-signed struct: version v1, certificate_timestamp, timestamp, x509_entry, cert, no extensions
    signed = struct.pack(">BBQH", 0, 0, timestamp, 0) + struct.pack(">I", len(leaf_der))[1:] + leaf_der
    signed += struct.pack(">H", 0)
    signature = run(["openssl", "dgst", "-sha256", "-sign", log_key], signed)
    # SCT: version, log id, timestamp, no extensions, sha256 + ecdsa, signature
    return (struct.pack(">B", 0) + log_id + struct.pack(">QH", timestamp, 0)
            + struct.pack(">BBH", 4, 3, len(signature)) + signature)


def main():
    leaf_pem, out, timestamp, log_keys = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    leaf_der = run(["openssl", "x509", "-in", leaf_pem, "-outform", "der"])
    entries = b"".join(struct.pack(">H", len(s)) + s for s in (sct(k, leaf_der, timestamp) for k in log_keys))
    sct_list = struct.pack(">H", len(entries)) + entries
    # SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_CERTIFICATE, type 18
    serverinfo = struct.pack(">IHH", 0x0080 | 0x0100 | 0x1000, 18, len(sct_list)) + sct_list
    text = base64.b64encode(serverinfo).decode()
    with open(out, "w") as file:
        file.write("-----BEGIN SERVERINFOV2 FOR signed_certificate_timestamp-----\n")
        for start in range(0, len(text), 64):
            file.write(text[start:start + 64] + "\n")
        file.write("-----END SERVERINFOV2 FOR signed_certificate_timestamp-----\n")


if __name__ == "__main__":
    main()
