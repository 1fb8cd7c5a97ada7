#!/usr/bin/env bash
# Generates the FWTLS test fixtures under Fixtures/tls/ with the openssl CLI: a root CA, an
# intermediate CA, server leaves for every trust outcome the tests check, a client identity signed by
# its own client CA, stapled OCSP responses, and Fixtures/tls/README.md listing every file with its
# SPKI pin (curl's sha256//BASE64 form).
#
# The output is committed; rerun only to rotate the fixtures (they are valid ~20 years, and
# FixtureExpiryTests fails a year before any of them expires). Needs only `openssl` (3.x) and bash.
set -euo pipefail
cd "$(dirname "$0")/.."

out=Fixtures/tls
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*.pem "$out"/*.key "$out"/*.p12 "$out"/*.der "$out"/README.md

# MARK: - Dates (openssl ca takes GeneralizedTime: YYYYMMDDHHMMSSZ)

stamp() { date -u -d "$1" +%Y%m%d%H%M%SZ; }
valid_from=$(stamp '-1 day')
valid_until=$(stamp '+20 years')
days=7300
client_password=fwnetworking

# MARK: - Helpers

# new_key NAME ec|rsa: a PKCS#8 private key at $out/NAME.key.
new_key() {
    case "$2" in
        ec) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/$1.key" 2>/dev/null ;;
        rsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$out/$1.key" 2>/dev/null ;;
    esac
}

# new_root NAME "Common Name": a self-signed CA certificate plus its signing database.
new_root() {
    new_key "$1" ec
    openssl req -x509 -new -key "$out/$1.key" -sha256 -days "$days" -subj "/O=FWNetworking Test/CN=$2" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -addext "subjectKeyIdentifier=hash" -out "$out/$1.pem"
    mkdir -p "$work/$1/newcerts"
    : >"$work/$1/index.txt"
    echo 1000 >"$work/$1/serial"
}

cat >"$work/ca.cnf" <<'EOF'
[ ca ]
default_ca = fixture_ca

[ fixture_ca ]
dir = $ENV::CADIR
database = $dir/index.txt
new_certs_dir = $dir/newcerts
serial = $dir/serial
default_md = sha256
policy = policy_any
unique_subject = no
email_in_dn = no

[ policy_any ]
organizationName = optional
commonName = supplied
EOF

# sign CA NAME "SUBJECT" FROM UNTIL EXTENSIONS: signs NAME.key's request with CA into NAME.pem.
sign() {
    local ca=$1 name=$2 subject=$3 from=$4 until=$5 extensions=$6
    printf '[ ext ]\n%s\n' "$extensions" >"$work/$name.ext"
    openssl req -new -key "$out/$name.key" -subj "$subject" -out "$work/$name.csr"
    CADIR="$work/$ca" openssl ca -batch -notext -config "$work/ca.cnf" -preserveDN \
        -cert "$out/$ca.pem" -keyfile "$out/$ca.key" -startdate "$from" -enddate "$until" \
        -extfile "$work/$name.ext" -extensions ext -in "$work/$name.csr" -out "$out/$name.pem" 2>/dev/null
}

intermediate_ext='basicConstraints=critical,CA:TRUE,pathlen:0
keyUsage=critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid'

# server_ext SAN: extensions of a TLS server leaf (an empty SAN leaves the extension out).
server_ext() {
    printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n'
    printf 'extendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n'
    if [ -n "$1" ]; then printf 'subjectAltName=%s\n' "$1"; fi
}

# leaf NAME ec|rsa CA "CN" "SAN" [FROM UNTIL]: a server leaf signed by CA.
leaf() {
    new_key "$1" "$2"
    sign "$3" "$1" "/O=FWNetworking Test/CN=$4" "${6:-$valid_from}" "${7:-$valid_until}" "$(server_ext "$5")"
}

# MARK: - Certificate authorities

new_root root-ca "FWNetworking Test Root CA"
new_key intermediate-ca ec
sign root-ca intermediate-ca "/O=FWNetworking Test/CN=FWNetworking Test Intermediate CA" \
    "$valid_from" "$valid_until" "$intermediate_ext"
mkdir -p "$work/intermediate-ca/newcerts"
: >"$work/intermediate-ca/index.txt"
echo 2000 >"$work/intermediate-ca/serial"
new_root unknown-root-ca "FWNetworking Unknown Root CA"
new_root client-ca "FWNetworking Test Client CA"

# MARK: - Server leaves

localhost_san='DNS:localhost,IP:127.0.0.1,IP:::1'
leaf valid-ecdsa ec intermediate-ca localhost "$localhost_san"
leaf valid-rsa rsa intermediate-ca localhost "$localhost_san"
leaf expired ec intermediate-ca localhost "$localhost_san" 20000101000000Z 20010101000000Z
leaf not-yet-valid ec intermediate-ca localhost "$localhost_san" 20900101000000Z 21000101000000Z
leaf wrong-host ec intermediate-ca wrong.fw.test 'DNS:wrong.fw.test'
leaf wildcard ec intermediate-ca '*.fw.test' 'DNS:*.fw.test'
leaf ip-only ec intermediate-ca 'FWNetworking IP leaf' 'IP:127.0.0.1,IP:::1'
leaf cn-only ec intermediate-ca localhost ''
leaf revoked ec intermediate-ca localhost "$localhost_san"
leaf unknown-root-leaf ec unknown-root-ca localhost "$localhost_san"

new_key self-signed ec
openssl req -x509 -new -key "$out/self-signed.key" -sha256 -days "$days" \
    -subj "/O=FWNetworking Test/CN=localhost" -addext "basicConstraints=critical,CA:FALSE" \
    -addext "subjectAltName=$localhost_san" -addext "extendedKeyUsage=serverAuth" -out "$out/self-signed.pem"

cat "$out/valid-ecdsa.pem" "$out/intermediate-ca.pem" >"$out/valid-ecdsa-chain.pem"

# MARK: - Client identity (mutual TLS)

new_key client ec
sign client-ca client "/O=FWNetworking Test/CN=FWNetworking Test Client" "$valid_from" "$valid_until" \
    'basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid'
openssl pkey -in "$out/client.key" -aes-256-cbc -passout "pass:$client_password" -out "$out/client-encrypted.key"
openssl pkcs12 -export -in "$out/client.pem" -inkey "$out/client.key" -certfile "$out/client-ca.pem" \
    -name "FWNetworking Test Client" -passout "pass:$client_password" -out "$out/client.p12"

# MARK: - Stapled OCSP responses (signed by the intermediate, the leaves' issuer)

CADIR="$work/intermediate-ca" openssl ca -batch -config "$work/ca.cnf" -cert "$out/intermediate-ca.pem" \
    -keyfile "$out/intermediate-ca.key" -revoke "$out/revoked.pem" -crl_reason keyCompromise 2>/dev/null

# ocsp_response LEAF OUTPUT: a DER OCSP response for LEAF valid for the fixtures' lifetime.
ocsp_response() {
    openssl ocsp -no_nonce -issuer "$out/intermediate-ca.pem" -cert "$out/$1.pem" -reqout "$work/$1.ocspreq"
    openssl ocsp -index "$work/intermediate-ca/index.txt" -rsigner "$out/intermediate-ca.pem" \
        -rkey "$out/intermediate-ca.key" -CA "$out/intermediate-ca.pem" -reqin "$work/$1.ocspreq" \
        -ndays "$days" -respout "$out/$2" >/dev/null 2>&1
}
ocsp_response valid-ecdsa ocsp-valid-ecdsa-good.der
ocsp_response revoked ocsp-revoked.der

# MARK: - README

# ocsp_next_update FILE: the response's nextUpdate as YYYY-MM-DD.
ocsp_next_update() {
    date -u -d "$(openssl ocsp -respin "$out/$1" -resp_text -noverify | sed -n 's/^ *Next Update: //p')" +%Y-%m-%d
}

pin() {
    openssl x509 -in "$out/$1" -pubkey -noout | openssl pkey -pubin -outform der |
        openssl dgst -sha256 -binary | openssl base64 -A
}

describe() {
    case "$1" in
        root-ca.pem) echo "Root CA: the fixtures' trust anchor" ;;
        intermediate-ca.pem) echo "Intermediate CA (signed by root-ca) that issues every server leaf" ;;
        unknown-root-ca.pem) echo "A second root CA that is deliberately NOT in the fixture trust set" ;;
        client-ca.pem) echo "Root of the client identity (s_server -Verify 1 -CAfile client-ca.pem)" ;;
        valid-ecdsa.pem) echo "Valid ECDSA P-256 leaf: localhost, 127.0.0.1, ::1 (also: missing intermediate)" ;;
        valid-ecdsa-chain.pem) echo "valid-ecdsa.pem followed by intermediate-ca.pem (pin of the leaf)" ;;
        valid-rsa.pem) echo "Valid RSA 2048 leaf: localhost, 127.0.0.1, ::1" ;;
        expired.pem) echo "Expired on purpose (2000-01-01 to 2001-01-01)" ;;
        not-yet-valid.pem) echo "Not yet valid on purpose (2090-01-01 to 2100-01-01)" ;;
        wrong-host.pem) echo "Valid chain, SAN DNS:wrong.fw.test only (hostname mismatch)" ;;
        wildcard.pem) echo "Valid chain, SAN DNS:*.fw.test" ;;
        ip-only.pem) echo "Valid chain, SAN IP:127.0.0.1 and IP:::1 only" ;;
        cn-only.pem) echo "Valid chain, CN=localhost and no subjectAltName (CN fallback)" ;;
        revoked.pem) echo "Valid chain, revoked by the intermediate (see ocsp-revoked.der)" ;;
        unknown-root-leaf.pem) echo "localhost leaf issued by unknown-root-ca (unknown root)" ;;
        self-signed.pem) echo "Self-signed localhost leaf" ;;
        client.pem) echo "Client identity (clientAuth), issued by client-ca" ;;
    esac
}

{
    echo "# TLS test fixtures"
    echo
    echo "Generated by \`Scripts/make-test-certs.sh\` ($(openssl version | cut -d' ' -f1-2)) on $(date -u +%Y-%m-%d)."
    echo "Test-only material: every private key here is public. Valid from $valid_from to $valid_until"
    echo "except the deliberately expired and not-yet-valid leaves; the OCSP responses go stale a few days"
    echo "earlier ($(ocsp_next_update ocsp-valid-ecdsa-good.der))."
    echo
    echo "## When to regenerate"
    echo
    echo "By **$(date -u -d "$(ocsp_next_update ocsp-valid-ecdsa-good.der) -1 year" +%Y-%m-%d)**, a year before the first of them goes stale: from"
    echo "that day FixtureExpiryTests fails (it is the only test that reads today's date, on purpose). Run \`Scripts/make-test-certs.sh\` and commit \`Fixtures/tls\`; nothing else"
    echo "changes (the tests read pins from this README and dates from the fixtures)."
    echo "No other test depends on the date: \`Scripts/time-travel.sh\` (run by \`Scripts/test.sh\`) runs the"
    echo "whole suite again with the clock at +1 day, +30 days and +5 years."
    echo
    echo "Each \`NAME.pem\` certificate has its private key in \`NAME.key\` (PKCS#8 PEM, unencrypted)."
    echo
    echo "| file | what it is for | SPKI pin |"
    echo "|---|---|---|"
    for file in root-ca.pem intermediate-ca.pem unknown-root-ca.pem client-ca.pem valid-ecdsa.pem \
        valid-ecdsa-chain.pem valid-rsa.pem expired.pem not-yet-valid.pem wrong-host.pem wildcard.pem \
        ip-only.pem cn-only.pem revoked.pem unknown-root-leaf.pem self-signed.pem client.pem; do
        echo "| \`$file\` | $(describe "$file") | \`sha256//$(pin "$file")\` |"
    done
    echo
    echo "Other files:"
    echo
    echo "- \`client-encrypted.key\`: client.key encrypted (AES-256-CBC) with the password \`$client_password\`."
    echo "- \`client.p12\`: PKCS#12 of client.pem + client.key + client-ca.pem, password \`$client_password\`."
    echo "- \`ocsp-valid-ecdsa-good.der\`: OCSP response (status good) for valid-ecdsa.pem, signed by the"
    echo "  intermediate; staple it with \`openssl s_server -status_file\`."
    echo "- \`ocsp-revoked.der\`: OCSP response (status revoked, keyCompromise) for revoked.pem."
    echo "- The missing-intermediate case is a server configuration: serve valid-ecdsa.pem without"
    echo "  \`-cert_chain intermediate-ca.pem\`."
} >"$out/README.md"

echo "make-test-certs: wrote $(ls "$out" | wc -l) files to $out"

# The pinning-lab fixtures (Fixtures/tls/pinning) are signed by the intermediate made above.
Scripts/make-pinning-fixtures.sh
