#!/usr/bin/env bash
# Runs the example study end to end from its committed inputs: the pre-registration checks that
# CI runs, the whole pipeline with the example's TEST-ONLY operator keys, then an audit of the
# outputs. Modifies no committed file (outputs/<run_id>/ and work/ are ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
prereg() { node bin/prereg.mjs "$@"; }
keys=test/fixtures/keys

echo "== check-anchors: every frozen digest recomputed, every anchor verified"
prereg check-anchors
echo "== reveal-check: the revealed answer key reproduces the frozen commitment"
prereg reveal-check
echo "== run: ingest → verify → classify → score → emit (TEST-ONLY operator keys)"
status=0
prereg run --operator-key "$keys/TEST-ONLY-operator.key.pem" \
  --cms-key "$keys/TEST-ONLY-operator-cms.key.pem" --cms-cert "$keys/TEST-ONLY-operator-cms.cert.pem" || status=$?
if [ "$status" -eq 4 ]; then
  echo "   (these outputs were emitted by an earlier run: an output directory is never overwritten)"
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
echo "== the scores, declared vs proven"
latest=$(ls -td outputs/*/ | head -1)
echo "   $latest"
sed -n "/^## Scores/,/^## /p" "$latest/report.md" | head -40
