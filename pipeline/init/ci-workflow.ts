// The GitHub Actions workflow `prereg init` writes into a study (docs/ci.md): on every push and
// pull request, install prereg from the source the study names and run `check-anchors` against the
// freeze_digest the study publishes. Pure text: the init stage writes it; a test parses it with
// GitHub's own parser and runs its steps, so that it cannot rot.
import { posix } from 'node:path';

/** Where the workflow goes in the study. */
export const CI_WORKFLOW_FILE = '.github/workflows/prereg.yml';
/** Where a frozen study publishes its freeze_digest (64 hex digits, one line): the CI's --expect-freeze. */
export const FREEZE_DIGEST_FILE = 'preregistration/FREEZE-DIGEST';
/** Where the CI keeps check-anchors' --json document (under work/, which the study's .gitignore leaves out). */
export const CI_REPORT_FILE = 'work/ci/check-anchors.json';
/** Where a tarball init copies into the study goes. */
export const CI_TOOLS_DIR = 'tools';

/**
 * How the workflow installs prereg: a file of the repository, or an https URL of a release tarball.
 * Never a bare name: npm would install whatever a registry serves under it, and no registry name
 * is the project's own. The same rule init applies to --prereg-source.
 */
const INSTALL = `case "$PREREG_SOURCE" in
  https://*) source="$PREREG_SOURCE" ;;
  *)
    if [ ! -f "$PREREG_SOURCE" ]; then
      echo "::error::PREREG_SOURCE=$PREREG_SOURCE is neither a file of this repository nor an https URL: add the prereg release tarball there (the one you installed prereg from), or change the PREREG_SOURCE line of this CI job (docs/ci.md)"
      exit 1
    fi
    # A path npm reads as a file, never as a registry name or a GitHub shorthand.
    case "$PREREG_SOURCE" in /*|./*) source="$PREREG_SOURCE" ;; *) source="./$PREREG_SOURCE" ;; esac
    ;;
esac
npm install --global --no-audit --no-fund "$source"
prereg --version`;

/**
 * Before the freeze there is nothing to check; after it, every push is checked against the
 * published digest. A study that publishes a digest or keeps anchors is frozen, freeze.json or not:
 * removing it does not bring back "not frozen yet".
 */
const CHECK = `mkdir -p ${posix.dirname(CI_REPORT_FILE)}
if [ ! -f preregistration/freeze.json ]; then
  if [ -e ${FREEZE_DIGEST_FILE} ] || [ -d preregistration/anchors ]; then
    echo "::error file=preregistration/freeze.json::no preregistration/freeze.json, yet the study publishes a freeze_digest (${FREEZE_DIGEST_FILE}) or keeps anchors (preregistration/anchors/): a frozen study's freeze.json is gone"
    exit 1
  fi
  echo "::notice title=prereg::not frozen yet (no preregistration/freeze.json): check-anchors runs from the push that carries the freeze, its anchors and ${FREEZE_DIGEST_FILE}"
  exit 0
fi
if [ ! -f ${FREEZE_DIGEST_FILE} ]; then
  echo "::error file=${FREEZE_DIGEST_FILE}::the study is frozen but publishes no freeze_digest: write the freeze_digest that prereg freeze printed (the one the anchors witness) into ${FREEZE_DIGEST_FILE} and commit it (docs/ci.md)"
  exit 1
fi
expected="$(tr -d '[:space:]' < ${FREEZE_DIGEST_FILE})"
status=0
prereg check-anchors --root . --expect-freeze "$expected" --json > ${CI_REPORT_FILE} || status=$?
cat ${CI_REPORT_FILE}
if [ "$status" -ne 0 ]; then
  echo "::error::prereg check-anchors exited $status: the files, the anchors or the freeze differ from what the study froze and published (the check-anchors artifact keeps the document; prereg explain CODE for each of its reason_codes)"
  exit "$status"
fi
echo "::notice title=prereg::check-anchors: every frozen digest recomputed and every anchor verified for freeze_digest $expected"`;

const indent = (text: string, spaces: number) =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : ' '.repeat(spaces) + l))
    .join('\n');

/** The workflow, installing prereg from `source` (a repository path or an https URL). */
export function ciWorkflow(source: string): string {
  return `# prereg: this study's pre-registration anchors, checked on every push and pull request
# (written by \`prereg init\`; docs/ci.md of the prereg package, \`prereg docs ci\`). Until the freeze
# it passes with a notice; once preregistration/freeze.json is committed, it fails unless every
# frozen digest recomputes from the files, every anchor verifies, and the freeze_digest is the one
# published in ${FREEZE_DIGEST_FILE}.
name: prereg check-anchors
on:
  push:
  pull_request:
permissions:
  contents: read
env:
  # The one line to change: the prereg this CI installs, a release tarball kept in this repository
  # (a path) or an https URL of one. Never a package name (a registry would choose what it installs).
  PREREG_SOURCE: ${source}
defaults:
  run:
    shell: bash
jobs:
  check-anchors:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: install prereg from PREREG_SOURCE
        run: |
${indent(INSTALL, 10)}
      - name: prereg check-anchors
        run: |
${indent(CHECK, 10)}
      - name: keep the check-anchors document
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: check-anchors
          path: ${CI_REPORT_FILE}
          if-no-files-found: ignore
`;
}
