#!/usr/bin/env bash
# Generates the TEST-ONLY certificates that let `prereg emit` sign manifest.p7s (a detached CMS
# signature checkable with `openssl cms -verify`), bound to the operator's pinned Ed25519 key.
#
# Why not sign the CMS with the Ed25519 operator key itself: OpenSSL 3.0's CMS code refuses Ed25519
# signers ("no default digest" / "invalid digest"), so `openssl cms -verify` cannot check such a
# signature on the machines the study targets, and pkijs 3.4 has no Ed25519 support either. So:
#
#   TEST-ONLY-operator.cert.pem      self-signed X.509 certificate of the EXISTING Ed25519 operator key
#                                    (test/fixtures/keys/TEST-ONLY-operator.key.pem, pinned in
#                                    preregistration/trust/): the CA that openssl -CAfile trusts
#   TEST-ONLY-operator-cms.key.pem   RSA-2048 CMS signing key (PKCS#1 v1.5 signatures are
#                                    deterministic, so two emits give byte-identical manifest.p7s)
#   TEST-ONLY-operator-cms.cert.pem  its certificate, ISSUED BY THE OPERATOR KEY, followed by
#                                    TEST-ONLY-operator.cert.pem (the chain emit embeds in manifest.p7s)
#
# emit refuses a CMS certificate that the pinned operator key did not issue, so both signatures go
# back to the one pinned key. Dates are fixed (2020-01-01 .. 2099-12-31). Keys are random; the script
# refuses to overwrite existing files unless --force (nothing pins these files, the operator key is
# kept).
#
# Usage: scripts/make-test-operator-cms.sh [--force] [OUT_DIR]
set -euo pipefail

force=0
if [[ "${1:-}" == "--force" ]]; then force=1; shift; fi
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root_dir/test/fixtures/keys}"
openssl="${OPENSSL:-openssl}"
operator_key="$out/TEST-ONLY-operator.key.pem"

if [[ ! -f "$operator_key" ]]; then
  echo "make-test-operator-cms: $operator_key is missing; run scripts/make-test-signing-keys.sh first" >&2
  exit 3
fi
if [[ $force -eq 0 ]] && [[ -e "$out/TEST-ONLY-operator.cert.pem" || -e "$out/TEST-ONLY-operator-cms.key.pem" || -e "$out/TEST-ONLY-operator-cms.cert.pem" ]]; then
  echo "make-test-operator-cms: $out already holds the operator CMS files; pass --force to replace them" >&2
  exit 4
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/prereg-operator-cms.XXXXXX")"
trap 'rm -rf "$work"' EXIT

cat >"$work/ca.cnf" <<'EOF'
[ ca ]
default_ca = CA_default

[ CA_default ]
dir             = $ENV::CA_DIR
database        = $dir/index.txt
new_certs_dir   = $dir/newcerts
serial          = $dir/serial
# Ed25519 signs the message itself: no separate digest.
default_md      = default
policy          = policy_any
unique_subject  = no
copy_extensions = none
email_in_dn     = no

[ policy_any ]
organizationName       = supplied
organizationalUnitName = optional
commonName             = supplied

[ req ]
distinguished_name = req_dn
prompt             = no
[ req_dn ]
CN = unused

[ ext_operator ]
basicConstraints     = critical, CA:TRUE, pathlen:0
keyUsage             = critical, keyCertSign, digitalSignature
subjectKeyIdentifier = hash

[ ext_cms ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, nonRepudiation
extendedKeyUsage       = emailProtection
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
EOF

export CA_DIR="$work"
mkdir -p "$work/newcerts"
: >"$work/index.txt"
printf '%s\n' "$(( RANDOM % 8 ))$("$openssl" rand -hex 8 | cut -c2-16)" >"$work/serial"
O='/O=prereg TEST-ONLY fixtures/OU=not for production'
ca() { "$openssl" ca -batch -notext -preserveDN -config "$work/ca.cnf" \
  -startdate 20200101000000Z -enddate 20991231235959Z "$@" 2>"$work/ca.log" || { cat "$work/ca.log" >&2; exit 5; }; }

# The operator's own certificate: self-signed with the pinned Ed25519 key.
"$openssl" req -new -config "$work/ca.cnf" -key "$operator_key" -subj "$O/CN=TEST-ONLY prereg operator" -out "$work/operator.csr.pem"
ca -selfsign -keyfile "$operator_key" -extensions ext_operator -in "$work/operator.csr.pem" -out "$work/operator.cert.pem"

# The CMS signer: RSA-2048, issued by the operator key.
"$openssl" genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/cms.key.pem"
"$openssl" req -new -config "$work/ca.cnf" -key "$work/cms.key.pem" -subj "$O/CN=TEST-ONLY prereg operator manifest signer" -out "$work/cms.csr.pem"
ca -cert "$work/operator.cert.pem" -keyfile "$operator_key" -extensions ext_cms -in "$work/cms.csr.pem" -out "$work/cms.leaf.pem"

# Sanity: the signer chains to the operator certificate, whose key is the operator key.
"$openssl" verify -CAfile "$work/operator.cert.pem" "$work/cms.leaf.pem" >/dev/null
if ! cmp -s <("$openssl" x509 -in "$work/operator.cert.pem" -noout -pubkey) <("$openssl" pkey -in "$operator_key" -pubout); then
  echo "make-test-operator-cms: the operator certificate does not carry the operator key" >&2
  exit 5
fi

cp "$work/operator.cert.pem" "$out/TEST-ONLY-operator.cert.pem"
cp "$work/cms.key.pem" "$out/TEST-ONLY-operator-cms.key.pem"
cat "$work/cms.leaf.pem" "$work/operator.cert.pem" >"$out/TEST-ONLY-operator-cms.cert.pem"
echo "make-test-operator-cms: wrote TEST-ONLY-operator.cert.pem, TEST-ONLY-operator-cms.{key,cert}.pem to $out"
