#!/usr/bin/env bash
# Generates the TEST-ONLY Ed25519 keys used by the tests and the example study: an ArkForge issuer
# key (signs synthetic proofs), an operator key (signs output manifests and intake receipts) and
# one agent key per example system (signs its intake requests). They protect nothing.
# Refuses to overwrite existing keys unless --force: the example study pins their public halves.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/test/fixtures/keys"
mkdir -p "$dir"
for name in arkforge-2026 arkforge-2025-expired operator agent-copycat agent-sys-honest agent-sys-tampered agent-sys-truncated agent-sys-honest-rerun; do
  key="$dir/TEST-ONLY-$name.key.pem"
  if [[ -e "$key" && "${1:-}" != "--force" ]]; then echo "kept $key"; continue; fi
  openssl genpkey -algorithm ed25519 -out "$key"
  openssl pkey -in "$key" -pubout -out "$dir/TEST-ONLY-$name.pub.pem"
  echo "wrote $key"
done
