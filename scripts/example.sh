#!/usr/bin/env bash
# Runs the example study end to end from its committed inputs: the pre-registration checks that
# CI runs, then (as later stages land) the whole pipeline. Modifies no committed file.
set -euo pipefail
cd "$(dirname "$0")/.."
prereg() { node bin/prereg.mjs "$@"; }

echo "== check-anchors: every frozen digest recomputed, every anchor verified"
prereg check-anchors
echo "== reveal-check: the revealed answer key reproduces the frozen commitment"
prereg reveal-check
echo "== ingest: every submission line accepted or rejected with its reason"
prereg ingest
echo "== verify: every proof and receipt chain"
prereg verify
