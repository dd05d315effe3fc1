#!/usr/bin/env bash
# Regenerate the TEST-ONLY TSA PKI in test/fixtures/pki/ (or the directory given as $1).
#
# Writes, all PEM (keys are unencrypted PKCS#8, so pkijs/WebCrypto can import them):
#   TEST-ONLY-tsa-root.{cert,key}.pem        pinned TSA root CA, RSA-2048, self-signed, 2020-01-01 .. 2045-01-01
#   TEST-ONLY-tsa.{cert,key}.pem             TSA signer (ECDSA P-256) issued by that root,
#                                            critical extendedKeyUsage = timeStamping (RFC 3161 §2.3)
#   TEST-ONLY-tsa-no-eku.{cert,key}.pem      signer (ECDSA P-256) issued by the pinned root, WITHOUT the EKU
#   TEST-ONLY-unpinned-root.{cert,key}.pem   a second, unrelated root CA (ECDSA P-256), never pinned
#   TEST-ONLY-unpinned-tsa.{cert,key}.pem    TSA signer (RSA-2048) issued by the unpinned root, with the EKU
#
# Dates are fixed (openssl ca -startdate/-enddate) so the example study, whose tokens carry chosen
# genTimes, stays valid until 2045. Keys are random: rerunning changes every key and certificate,
# which invalidates the committed example study's tokens and trust digest, so the script refuses
# to overwrite existing files unless --force is given. Rebuild the example study afterwards.
#
# Usage: scripts/make-test-pki.sh [--force] [OUT_DIR]
set -euo pipefail

force=0
if [[ "${1:-}" == "--force" ]]; then force=1; shift; fi
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root_dir/test/fixtures/pki}"
openssl="${OPENSSL:-openssl}"

mkdir -p "$out"
if [[ $force -eq 0 ]] && compgen -G "$out/TEST-ONLY-*.pem" >/dev/null; then
  echo "make-test-pki: $out already holds TEST-ONLY-*.pem; pass --force to replace them" >&2
  echo "  (this invalidates the example study's tokens and trust digest: rebuild it afterwards)" >&2
  exit 4
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/prereg-test-pki.XXXXXX")"
trap 'rm -rf "$work"' EXIT

not_before=20200101000000Z
root_not_after=20450101000000Z
leaf_not_after=20441231000000Z

cat >"$work/ca.cnf" <<'EOF'
[ ca ]
default_ca = CA_default

[ CA_default ]
dir             = $ENV::CA_DIR
database        = $dir/index.txt
new_certs_dir   = $dir/newcerts
serial          = $dir/serial
default_md      = sha256
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

[ ext_root ]
basicConstraints     = critical, CA:TRUE
keyUsage             = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[ ext_tsa ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, nonRepudiation
extendedKeyUsage       = critical, timeStamping
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[ ext_no_eku ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
EOF

genkey() { # name rsa|ec
  if [[ "$2" == rsa ]]; then
    "$openssl" genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/$1.key.pem"
  else
    "$openssl" genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
      -pkeyopt ec_param_enc:named_curve -out "$work/$1.key.pem"
  fi
}

# One CA database per issuer; serials are random positive 64-bit numbers.
newca() { # name
  mkdir -p "$work/ca-$1/newcerts"
  : >"$work/ca-$1/index.txt"
  printf '%s\n' "$(( RANDOM % 8 ))$("$openssl" rand -hex 8 | cut -c2-16)" >"$work/ca-$1/serial"
}

sign() { # issuer subject-name subject-dn extensions not_after [selfsign]
  local issuer=$1 name=$2 dn=$3 ext=$4 not_after=$5 self=${6:-}
  CA_DIR="$work" "$openssl" req -new -config "$work/ca.cnf" -key "$work/$name.key.pem" -subj "$dn" \
    -out "$work/$name.csr.pem"
  local args=(-batch -notext -preserveDN -config "$work/ca.cnf" -extensions "$ext"
    -startdate "$not_before" -enddate "$not_after" -in "$work/$name.csr.pem"
    -out "$work/$name.cert.pem" -keyfile "$work/$issuer.key.pem")
  if [[ "$self" == selfsign ]]; then
    args+=(-selfsign)
  else
    args+=(-cert "$work/$issuer.cert.pem")
  fi
  CA_DIR="$work/ca-$issuer" "$openssl" ca "${args[@]}" 2>"$work/$name.ca.log" \
    || { cat "$work/$name.ca.log" >&2; exit 5; }
}

O='/O=prereg TEST-ONLY fixtures/OU=not for production'

genkey tsa-root rsa
newca tsa-root
sign tsa-root tsa-root "$O/CN=TEST-ONLY prereg TSA Root CA" ext_root "$root_not_after" selfsign

genkey tsa ec
sign tsa-root tsa "$O/CN=TEST-ONLY prereg TSA" ext_tsa "$leaf_not_after"

genkey tsa-no-eku ec
sign tsa-root tsa-no-eku "$O/CN=TEST-ONLY prereg TSA without timeStamping EKU" ext_no_eku "$leaf_not_after"

genkey unpinned-root ec
newca unpinned-root
sign unpinned-root unpinned-root "$O/CN=TEST-ONLY unpinned Root CA" ext_root "$root_not_after" selfsign

genkey unpinned-tsa rsa
sign unpinned-root unpinned-tsa "$O/CN=TEST-ONLY unpinned TSA" ext_tsa "$leaf_not_after"

# Sanity: each signer chains to its root and carries (or lacks) the EKU as intended.
"$openssl" verify -CAfile "$work/tsa-root.cert.pem" -purpose timestampsign "$work/tsa.cert.pem" >/dev/null
"$openssl" verify -CAfile "$work/unpinned-root.cert.pem" -purpose timestampsign "$work/unpinned-tsa.cert.pem" >/dev/null
if "$openssl" verify -CAfile "$work/tsa-root.cert.pem" -purpose timestampsign "$work/tsa-no-eku.cert.pem" >/dev/null 2>&1; then
  echo "make-test-pki: the no-EKU certificate unexpectedly passes the timestampsign purpose" >&2
  exit 5
fi

for name in tsa-root tsa tsa-no-eku unpinned-root unpinned-tsa; do
  cp "$work/$name.cert.pem" "$out/TEST-ONLY-$name.cert.pem"
  cp "$work/$name.key.pem" "$out/TEST-ONLY-$name.key.pem"
done
echo "make-test-pki: wrote TEST-ONLY PKI to $out"
