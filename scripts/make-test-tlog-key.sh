#!/usr/bin/env bash
# Generates the TEST-ONLY ECDSA P-256 key of the small in-test transparency log
# (test/support/tlog/): it signs the log's signed entry timestamps and checkpoints, as a Rekor
# log key does. It protects nothing. Prints the log id (hex SHA-256 of the DER SPKI, as Rekor
# defines it) that a trust policy pins for it.
# Refuses to overwrite the existing key unless --force: tests pin its public half.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/test/fixtures/keys"
mkdir -p "$dir"
key="$dir/TEST-ONLY-tlog.key.pem"
pub="$dir/TEST-ONLY-tlog.pub.pem"
if [[ -e "$key" && "${1:-}" != "--force" ]]; then
  echo "kept $key"
else
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -pkeyopt ec_param_enc:named_curve -out "$key"
  openssl pkey -in "$key" -pubout -out "$pub"
  echo "wrote $key"
fi
echo "log_id $(openssl pkey -pubin -in "$pub" -outform DER | openssl dgst -sha256 -r | cut -d' ' -f1)"
