#!/usr/bin/env bash
# Runs the example study end to end from its committed inputs: the pre-registration checks that
# CI runs, the whole pipeline with the example's TEST-ONLY operator keys, then an audit of the
# outputs. Modifies no committed file. The outputs go to work/example-outputs/<run_id>/, which
# this script clears first: an output directory is never overwritten, and the example is meant to
# be rerun (a real study emits once, into outputs/).
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build.mjs --if-stale # the CLI runs compiled (dist/)
prereg() { node bin/prereg.mjs "$@"; }
keys=test/fixtures/keys
outdir=work/example-outputs
# What the example's auditor obtained out of band (test/fixtures/example-auditor/README.md): the
# audit trusts only these, never the study's own trust directory.
auditor=test/fixtures/example-auditor
auditor_flags=(--tsa-root "$auditor/TEST-ONLY-tsa-root.cert.pem" --issuer-keys "$auditor/TEST-ONLY-issuer-keys.json"
  --expect-freeze "$(cat "$auditor/freeze-digest.txt")" --operator-key "$auditor/TEST-ONLY-operator.pub.pem")
for receipt in "$auditor"/receipts/*.receipt.json; do auditor_flags+=(--receipt "$receipt"); done

echo "== check-anchors: every frozen digest recomputed, every anchor verified under the auditor's root"
prereg check-anchors --tsa-root "$auditor/TEST-ONLY-tsa-root.cert.pem" --expect-freeze "$(cat "$auditor/freeze-digest.txt")"
echo "== reveal-check: the revealed answer key reproduces the frozen commitment"
prereg reveal-check
echo "== run: ingest → verify → classify → score → emit (TEST-ONLY operator keys)"
rm -rf "$outdir"
prereg run --outputs "$outdir" --operator-key "$keys/TEST-ONLY-operator.key.pem" \
  --cms-key "$keys/TEST-ONLY-operator-cms.key.pem" --cms-cert "$keys/TEST-ONLY-operator-cms.cert.pem"
latest=$(ls -d "$outdir"/*/)
echo "== status: every stage current (emit judged in $outdir)"
prereg status --outputs "$outdir" | sed 's/^/  /'
echo "== the scores, declared vs proven ($latest)"
node scripts/print-report-section.mjs "$latest/report.md" Scores
echo "== audit: rerun from the inputs in a scratch directory, compare byte for byte, trust only the auditor's roots and keys"
prereg audit "$latest" "${auditor_flags[@]}"
