#!/usr/bin/env python3
"""Writes a copy of an OCSP response whose (first) SingleResponse carries an SCT list extension
(1.3.6.1.4.1.11129.2.4.5, RFC 6962 §3.3): one SCT per log key given, each signed by that private test
log over LEAF.pem (an x509_entry, as for the TLS extension), with the timestamp given. The response data
is signed again with the responder's key (RESPONDER.key, an EC key: the signature algorithm of the
original, ecdsa-with-SHA256, is kept), so the staple still verifies. Every other field (responder,
producedAt, certID, status, thisUpdate, nextUpdate, certificates) is the original's. Used by
Scripts/make-pinning-fixtures.sh; needs python3 (standard library only) and openssl.

usage: make-ocsp-sct.py RESPONSE.der RESPONDER.key OUT.der LEAF.pem TIMESTAMP_MS LOG.key [LOG.key ...]
"""
import importlib.util
import os
import struct
import subprocess
import sys


def load_sct_signer():
    """make-sct-serverinfo.py's `sct(log_key, leaf_der, timestamp)`: one signed x509_entry SCT."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-sct-serverinfo.py")
    spec = importlib.util.spec_from_file_location("make_sct_serverinfo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.sct


def run(arguments, data=None):
    return subprocess.run(arguments, input=data, check=True, capture_output=True).stdout


def tlv(tag, content):
    length = len(content)
    if length < 0x80:
        return bytes([tag, length]) + content
    encoded = length.to_bytes((length.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(encoded)]) + encoded + content


def children(data):
    """The (tag, content, whole element) of each DER element in `data`, in order."""
    result, offset = [], 0
    while offset < len(data):
        tag, length, header = data[offset], data[offset + 1], 2
        if length & 0x80:
            count = length & 0x7F
            length = int.from_bytes(data[offset + 2:offset + 2 + count], "big")
            header += count
        end = offset + header + length
        result.append((tag, data[offset + header:end], data[offset:end]))
        offset = end
    if offset != len(data):
        raise ValueError("truncated DER")
    return result


def content(element):
    return children(element)[0][1]


def main():
    response, responder_key, out, leaf, timestamp, log_keys = (
        sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:])
    sct = load_sct_signer()
    leaf_der = run(["openssl", "x509", "-in", leaf, "-outform", "der"])
    entries = b"".join(struct.pack(">H", len(s)) + s for s in (sct(k, leaf_der, timestamp) for k in log_keys))
    sct_list = struct.pack(">H", len(entries)) + entries
    oid = bytes([0x06, 0x0A, 0x2B, 0x06, 0x01, 0x04, 0x01, 0xD6, 0x79, 0x02, 0x04, 0x05])  # 1.3.6.1.4.1.11129.2.4.5
    extension = tlv(0x30, oid + tlv(0x04, tlv(0x04, sct_list)))
    single_extensions = tlv(0xA1, tlv(0x30, extension))

    with open(response, "rb") as file:
        outer = content(file.read())  # OCSPResponse: status, [0] responseBytes
    status, response_bytes = children(outer)
    response_type, basic_octets = children(content(response_bytes[1]))
    tbs, algorithm, _signature, *certs = children(content(basic_octets[1]))
    # ResponseData: [0] version?, responderID, producedAt, responses, [1] responseExtensions?
    fields = children(tbs[1])
    index = next(i for i, field in enumerate(fields) if field[0] == 0x30)  # responses
    singles = children(fields[index][1])
    first = children(singles[0][1])
    if any(field[0] == 0xA1 for field in first):
        raise ValueError("the SingleResponse already has singleExtensions")
    singles[0] = (0x30, None, tlv(0x30, b"".join(f[2] for f in first) + single_extensions))
    fields[index] = (0x30, None, tlv(0x30, b"".join(s[2] for s in singles)))
    new_tbs = tlv(0x30, b"".join(f[2] for f in fields))

    signature = run(["openssl", "dgst", "-sha256", "-sign", responder_key], new_tbs)
    basic = tlv(0x30, new_tbs + algorithm[2] + tlv(0x03, b"\x00" + signature) + b"".join(c[2] for c in certs))
    response_bytes = tlv(0xA0, tlv(0x30, response_type[2] + tlv(0x04, basic)))
    with open(out, "wb") as file:
        file.write(tlv(0x30, status[2] + response_bytes))


if __name__ == "__main__":
    main()
