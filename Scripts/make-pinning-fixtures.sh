#!/usr/bin/env bash
# Adds the pinning-lab fixtures under Fixtures/tls/pinning/, signed by the existing intermediate CA of
# Fixtures/tls (made by Scripts/make-test-certs.sh, which runs this script at its end). It never changes
# a file outside Fixtures/tls/pinning/, so the other fixtures and the tests that read them stay as they
# are. Makes:
#
#   intermediate-ca.crl.pem  the intermediate's CRL revoking revoked.pem and crl-dp-revoked.pem
#                            (keyCompromise), valid ~20 years
#   intermediate-ca.crl      the same CRL in DER: what the distribution point below serves
#   crl-dp.pem / .key, crl-dp-revoked.pem / .key   localhost leaves whose CRL distribution point is
#                            http://crl.fwnetworking.test/intermediate-ca.crl (a name under the reserved
#                            .test domain, which never resolves: tests reach it through an HTTP proxy on
#                            127.0.0.1 with a port chosen at test time, so no port is fixed here)
#   rotated.pem / .key       a localhost leaf with a new key: the server after a key rotation
#   next-backup.key          a key not in use by any certificate: the backup pin after the rotation
#   ct-log-a.key, ct-log-b.key, ct-log-unknown.key   private test Certificate Transparency logs
#   ct-logs.cnf              the log list (OpenSSL's CTLOG_STORE format) naming logs a and b only
#   valid-ecdsa.sct-*.serverinfo.pem  SCTs for ../valid-ecdsa.pem (timestamp: its notBefore) for
#                            `openssl s_server -serverinfo`: from logs a and b, from a only, from the
#                            unknown log
#   embedded-sct.pem / .key  a localhost leaf carrying SCTs from logs a and b in its own SCT list
#                            extension (timestamp: its notBefore), made by Scripts/make-embedded-sct.py
#                            over its twin without the extension
#   ocsp-valid-ecdsa.sct-*.der  ../ocsp-valid-ecdsa-good.der with an SCT list single extension (SCTs for
#                            ../valid-ecdsa.pem, timestamp: its notBefore; from logs a and b, from b
#                            only), signed again by the responder (the intermediate), made by
#                            Scripts/make-ocsp-sct.py: staples for `openssl s_server -status_file`
#   README.md                every file with its SPKI pin, and the CRL's dates
#
# Needs only `openssl` (3.x) and bash.
set -euo pipefail
cd "$(dirname "$0")/.."

tls=Fixtures/tls
out=$tls/pinning
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*.pem "$out"/*.key "$out"/*.cnf "$out"/*.crl "$out"/*.der "$out"/README.md

days=7300
stamp() { date -u -d "$1" +%Y%m%d%H%M%SZ; }

cat >"$work/ca.cnf" <<'CNF'
[ ca ]
default_ca = fixture_ca

[ fixture_ca ]
dir = $ENV::CADIR
database = $dir/index.txt
new_certs_dir = $dir/newcerts
serial = $dir/serial
default_md = sha256
default_crl_days = 7300
policy = policy_any
unique_subject = no
email_in_dn = no

[ policy_any ]
organizationName = optional
commonName = supplied
CNF
mkdir -p "$work/ca/newcerts"
: >"$work/ca/index.txt"
echo 3000 >"$work/ca/serial"
echo 3000 >"$work/ca/crlnumber"
ca() { CADIR="$work/ca" openssl ca -batch -config "$work/ca.cnf" -cert "$tls/intermediate-ca.pem" \
    -keyfile "$tls/intermediate-ca.key" "$@"; }

# MARK: - The rotated leaf and the next backup key

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/rotated.key" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/next-backup.key" 2>/dev/null
printf '[ ext ]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' \
    'extendedKeyUsage=serverAuth
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1' >"$work/leaf.ext"
openssl req -new -key "$out/rotated.key" -subj "/O=FWNetworking Test/CN=localhost" -out "$work/rotated.csr"
ca -notext -preserveDN -startdate "$(stamp '-1 day')" -enddate "$(stamp '+20 years')" \
    -extfile "$work/leaf.ext" -extensions ext -in "$work/rotated.csr" -out "$out/rotated.pem" 2>/dev/null

# MARK: - Leaves naming a CRL distribution point

crl_dp_uri=http://crl.fwnetworking.test/intermediate-ca.crl
{ cat "$work/leaf.ext"; echo "crlDistributionPoints=URI:$crl_dp_uri"; } >"$work/crl-dp.ext"
for leaf in crl-dp crl-dp-revoked; do
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/$leaf.key" 2>/dev/null
    openssl req -new -key "$out/$leaf.key" -subj "/O=FWNetworking Test/CN=localhost" -out "$work/$leaf.csr"
    ca -notext -preserveDN -startdate "$(stamp '-1 day')" -enddate "$(stamp '+20 years')" \
        -extfile "$work/crl-dp.ext" -extensions ext -in "$work/$leaf.csr" -out "$out/$leaf.pem" 2>/dev/null
done

# MARK: - The CRL (revoked.pem and crl-dp-revoked.pem revoked; every other leaf covered and not revoked)

ca -revoke "$tls/revoked.pem" -crl_reason keyCompromise 2>/dev/null
ca -revoke "$out/crl-dp-revoked.pem" -crl_reason keyCompromise 2>/dev/null
ca -gencrl -crldays "$days" -out "$out/intermediate-ca.crl.pem" 2>/dev/null
openssl crl -in "$out/intermediate-ca.crl.pem" -outform der -out "$out/intermediate-ca.crl"

# MARK: - Certificate Transparency (private test logs only)

for log in a b unknown; do
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/ct-log-$log.key" 2>/dev/null
done
log_key() { openssl pkey -in "$out/ct-log-$1.key" -pubout -outform der | openssl base64 -A; }
{
    echo "enabled_logs = fwtest-a,fwtest-b"
    for log in a b; do
        printf '\n[fwtest-%s]\ndescription = FWNetworking Test CT Log %s\nkey = %s\n' "$log" "$log" "$(log_key "$log")"
    done
} >"$out/ct-logs.cnf"
issued_ms=$(( $(date -u -d "$(openssl x509 -in "$tls/valid-ecdsa.pem" -noout -startdate | cut -d= -f2)" +%s) * 1000 ))
sct() { Scripts/make-sct-serverinfo.py "$tls/valid-ecdsa.pem" "$out/valid-ecdsa.sct-$1.serverinfo.pem" "$issued_ms" "${@:2}"; }
sct two-logs "$out/ct-log-a.key" "$out/ct-log-b.key"
sct one-log "$out/ct-log-a.key"
sct unknown-log "$out/ct-log-unknown.key"
# The same SCTs in a stapled OCSP response (the good response for valid-ecdsa.pem, signed again).
ocsp_sct() { Scripts/make-ocsp-sct.py "$tls/ocsp-valid-ecdsa-good.der" "$tls/intermediate-ca.key" \
    "$out/ocsp-valid-ecdsa.sct-$1.der" "$tls/valid-ecdsa.pem" "$issued_ms" "${@:2}"; }
ocsp_sct two-logs "$out/ct-log-a.key" "$out/ct-log-b.key"
ocsp_sct log-b "$out/ct-log-b.key"

# MARK: - A leaf with embedded SCTs
#
# The twin is the same certificate without the SCT list extension (same serial, dates, key and other
# extensions); the logs sign its TBSCertificate as a precert_entry. Each is issued from its own empty CA
# database, so both get serial 5000.

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/embedded-sct.key" 2>/dev/null
openssl req -new -key "$out/embedded-sct.key" -subj "/O=FWNetworking Test/CN=localhost" -out "$work/embedded-sct.csr"
sct_start=$(stamp '-1 day')
sct_end=$(stamp '+20 years')
issue_embedded() { # $1 extension file, $2 output
    rm -rf "$work/ca" && mkdir -p "$work/ca/newcerts" && : >"$work/ca/index.txt" && echo 5000 >"$work/ca/serial"
    ca -notext -preserveDN -startdate "$sct_start" -enddate "$sct_end" -extfile "$1" -extensions ext \
        -in "$work/embedded-sct.csr" -out "$2" 2>/dev/null
}
issue_embedded "$work/leaf.ext" "$work/embedded-sct-twin.pem"
sct_ms=$(( $(date -u -d "$(openssl x509 -in "$work/embedded-sct-twin.pem" -noout -startdate | cut -d= -f2)" +%s) * 1000 ))
sct_hex=$(Scripts/make-embedded-sct.py "$work/embedded-sct-twin.pem" "$tls/intermediate-ca.pem" "$sct_ms" \
    "$out/ct-log-a.key" "$out/ct-log-b.key")
{ cat "$work/leaf.ext"; echo "1.3.6.1.4.1.11129.2.4.2=DER:$sct_hex"; } >"$work/embedded-sct.ext"
issue_embedded "$work/embedded-sct.ext" "$out/embedded-sct.pem"

# MARK: - README

pin_of_key() {
    openssl pkey -in "$1" -pubout -outform der | openssl dgst -sha256 -binary | openssl base64 -A
}
crl_date() { openssl crl -in "$out/intermediate-ca.crl.pem" -noout "-$1" | cut -d= -f2; }
{
    echo "# Pinning-lab fixtures"
    echo
    echo "Added by \`Scripts/make-pinning-fixtures.sh\` ($(openssl version | cut -d' ' -f1-2)) on $(date -u +%Y-%m-%d),"
    echo "signed by \`../intermediate-ca.pem\`. Test-only material: every private key here is public."
    echo "The CRL runs from $(crl_date lastupdate) to $(crl_date nextupdate); tests read these dates"
    echo "from the CRL itself."
    echo
    echo "| file | what it is for | SPKI pin |"
    echo "|---|---|---|"
    echo "| \`rotated.pem\` | localhost leaf with a new key: the server after a rotation | \`sha256//$(pin_of_key "$out/rotated.key")\` |"
    echo "| \`next-backup.key\` | a key no certificate uses yet: the backup pin after the rotation | \`sha256//$(pin_of_key "$out/next-backup.key")\` |"
    echo
    echo "- \`intermediate-ca.crl.pem\`: the intermediate's CRL; revokes \`../revoked.pem\` and \`crl-dp-revoked.pem\`"
    echo "  (keyCompromise), covers every other leaf of the intermediate (curl's \`--crlfile\`);"
    echo "  \`intermediate-ca.crl\`: the same in DER."
    echo "- \`crl-dp.pem\`, \`crl-dp-revoked.pem\`: localhost leaves whose CRL distribution point is"
    echo "  \`$crl_dp_uri\` (a reserved .test name: tests serve it through an HTTP proxy on 127.0.0.1)."
    echo "- \`ct-log-a.key\`, \`ct-log-b.key\`: private test CT logs listed in \`ct-logs.cnf\` (OpenSSL's log"
    echo "  list format); \`ct-log-unknown.key\`: a log no list names."
    echo "- \`valid-ecdsa.sct-two-logs.serverinfo.pem\` (logs a and b), \`-one-log\` (a), \`-unknown-log\`:"
    echo "  SCTs for \`../valid-ecdsa.pem\` timestamped at its notBefore, for \`openssl s_server -serverinfo\`."
    echo "- \`embedded-sct.pem\`: a localhost leaf whose own SCT list extension carries SCTs from logs a and b"
    echo "  (precert entries over its TBSCertificate, timestamped at its notBefore)."
    echo "- \`ocsp-valid-ecdsa.sct-two-logs.der\` (logs a and b), \`-log-b\` (b): \`../ocsp-valid-ecdsa-good.der\`"
    echo "  with the SCTs for \`../valid-ecdsa.pem\` in an SCT list single extension, signed again by the"
    echo "  intermediate (\`openssl s_server -status_file\` staples them)."
} >"$out/README.md"

echo "make-pinning-fixtures: wrote $(ls "$out" | wc -l) files to $out"
