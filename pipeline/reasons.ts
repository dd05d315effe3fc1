// The one catalogue of reason codes. Every refusal, rejection and failed check names a code from
// here; `prereg explain CODE` prints its meaning and next step. Add entries, never rename one:
// codes are a stable public contract (SPEC §10).

/** Exit codes, SPEC §10. */
export const EXIT = {
  ok: 0,
  failures: 1,
  usage: 2,
  blocked: 3,
  conflict: 4,
  internal: 5,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface ReasonEntry {
  /** What went wrong, in one sentence. */
  meaning: string;
  /** What the user should do next. */
  next: string;
  /** The exit code of a command this code stops (SPEC §10); EXIT.blocked when not given. */
  exit?: ExitCode;
}

export const REASONS = {
  // --- usage and internal -----------------------------------------------------------------
  USAGE: {
    exit: EXIT.usage,
    meaning: 'The command line was not understood (unknown stage, option or missing argument).',
    next: 'Run `prereg --help` or `prereg <stage> --help`.',
  },
  INTERNAL_ERROR: {
    exit: EXIT.internal,
    meaning: 'The tool hit a bug; nothing was written.',
    next: 'Report the message and the command line; rerunning will not help.',
  },
  ROOT_NOT_FOUND: {
    exit: EXIT.usage,
    meaning: '--root names a path that does not exist or is not a directory; no command looks for a study there.',
    next: 'Check the path: --root names the study directory (the one holding preregistration/).',
  },
  UNKNOWN_REASON_CODE: {
    meaning: 'A code given to `prereg explain` is not in the catalogue.',
    next: 'Check the spelling; an unknown code is never a favourable result.',
  },
  FILE_NOT_FOUND: {
    meaning: 'A file or directory the stage needs does not exist.',
    next: 'Check the path; stages are run from the study root (or pass --root).',
  },
  INPUT_NOT_REGULAR_FILE: {
    exit: EXIT.conflict,
    meaning:
      'An input path names a FIFO (named pipe), device, socket or directory, not a regular file; reading it could block forever or never end, so it is not opened.',
    next: 'Replace it by the regular file it should be (e.g. copy the data into a file instead of piping it).',
  },

  // --- the MCP server, `prereg mcp` (docs/mcp.md) ------------------------------------------------
  MCP_PATH_OUTSIDE_ROOT: {
    exit: EXIT.conflict,
    meaning:
      'A tool of `prereg mcp` was given a path outside the study directory it serves (--root), judged on real paths (symlinks resolved): the server reads only inside that directory, so nothing was read.',
    next: 'Name a file inside the study directory (relative to it, or absolute under it); copy a file from elsewhere into the study first, or run the CLI yourself on it.',
  },
  MCP_SDK_MISSING: {
    meaning:
      '`prereg mcp` needs the Model Context Protocol SDK (@modelcontextprotocol/sdk), an optional peer dependency that is not installed beside prereg: nothing else of prereg needs it, so installing prereg does not bring it.',
    next: 'Install it where prereg is installed: `npm install @modelcontextprotocol/sdk@^1.32.2` (or `npm install --global …` beside a global prereg), then run `prereg mcp` again.',
  },

  // --- canonical JSON (SPEC §3) -------------------------------------------------------------
  JSON_SYNTAX: {
    meaning: 'The text is not valid JSON (the message gives line and column).',
    next: 'Fix the JSON at the position shown.',
  },
  JSON_DUPLICATE_KEY: {
    meaning: 'An object has the same key twice; two parsers could read two different documents with one hash.',
    next: 'Remove the duplicate key at the line and column shown.',
  },
  JSON_NUMBER_INVALID: {
    meaning: 'A number is NaN, Infinity, overflows a double, or is an integer longer than 4,300 digits.',
    next: 'Write the number as a finite JSON number.',
  },
  JSON_NOT_UTF8: {
    meaning: 'The bytes are not valid UTF-8.',
    next: 'Re-encode the file as UTF-8.',
  },

  // --- RFC 3161 timestamp tokens (SPEC §4.4, §6.1 step 5; pipeline/evidence/timestamp/rfc3161.ts) -----
  TSA_TOKEN_MALFORMED: {
    meaning:
      'The timestamp token is not a well-formed RFC 3161 TimeStampResp or TimeStampToken (bad DER, wrong structure, no TSTInfo, or not exactly one signer).',
    next: 'Check the file is the binary .tsr (not base64 or PEM) and complete; obtain the token again from the TSA.',
  },
  TSA_STATUS_REJECTED: {
    meaning: 'The TSA answered with a PKIStatus other than granted/grantedWithMods, so there is no token.',
    next: 'Read the status text and failInfo; fix the request (e.g. a hash algorithm the TSA accepts) or use another TSA.',
  },
  TSA_HASH_WEAK: {
    meaning:
      "The token's message imprint uses SHA-1 (or an algorithm prereg cannot name), or its signature hashes with SHA-1 or MD5 (signer digest or signature algorithm, as FreeTSA's tokens of 2017): a collision or second preimage is not ruled out, so the token binds nothing. `openssl ts -verify` still accepts both; prereg deliberately does not. SHA-256, SHA-384 and SHA-512 are accepted.",
    next: 'Request a new token with a SHA-2 imprint (e.g. `openssl ts -query -sha256` or `-sha512`) from a TSA that signs with SHA-2; an old SHA-1-signed token cannot be repaired.',
  },
  TSA_IMPRINT_MISMATCH: {
    meaning:
      "The token's message imprint is not the hash, under the token's own algorithm (SHA-256, SHA-384 or SHA-512), of the expected bytes (the 32 bytes of a digest such as freeze_digest, or the data given to verify-token), nor the imprint given with --digest, or not of the algorithm --hash asserts: it timestamps something else.",
    next: 'Check the token belongs to these bytes (freeze_digest, the chain hash, the file); request a token over the right bytes (the 32 bytes of a digest, not its hex text).',
  },
  TSA_NONCE_MISMATCH: {
    meaning:
      "The token's nonce is not the one its request carried (or it has none though one was sent): RFC 3161 §2.4.2 requires the requester to refuse it, since it may be an older token replayed (by the TSA or someone between) or one meant for another request. The TSA client refuses such a reply before keeping it; verify-token --query reports it as `openssl ts -verify -queryfile` does.",
    next: 'Request a new token; if it happens again with one TSA, suspect the TSA or the network path to it and use another TSA.',
  },
  TSA_POLICY_MISMATCH: {
    meaning:
      'The request named a TSA policy (reqPolicy) and the token was issued under another: it is not the answer to that request (`openssl ts -verify -queryfile` refuses it too).',
    next: 'Request the token again under the policy you need, or drop the policy from the request if the TSA default is acceptable.',
  },
  TSA_REQUEST_MALFORMED: {
    meaning: 'The file given with verify-token --query is not a DER TimeStampReq (RFC 3161 §2.4.1) of version 1.',
    next: 'Give the .tsq the request was made from (binary DER, as `openssl ts -query -out` writes it).',
  },
  TSA_SIGNATURE_INVALID: {
    meaning: "The token's CMS signature does not verify with the key of the signer certificate its SignerInfo names.",
    next: 'The token was altered or damaged; obtain it again from the TSA.',
  },
  TSA_SIGNER_NOT_FOUND: {
    meaning:
      "The certificate the token's SignerInfo names is neither carried in the token nor supplied by the trust policy's tsa_certs, so its signature cannot be checked (a pinned root is never looked up as the signer).",
    next: "Obtain the token with certReq true, or add the TSA's signing certificate (and any intermediate) to tsa_certs in preregistration/trust/policy.json before the freeze (docs/trust.md).",
  },
  TSA_SIGNER_UNBOUND: {
    meaning: 'No signed ESSCertID/ESSCertIDv2 attribute binds the signer certificate to the signature (RFC 3161 §2.4.2, RFC 5816).',
    next: 'Use a TSA whose tokens carry the signing-certificate attribute; such a token cannot be tied to its certificate.',
  },
  TSA_CHAIN_UNTRUSTED: {
    meaning:
      "The TSA's certificate does not chain, at the token's genTime (or the time verify-token --at names), to a pinned TSA root (preregistration/trust/, or --tsa-root).",
    next: "Pin the TSA's root before the freeze if this TSA is meant to be trusted; otherwise the token is not evidence.",
  },
  TSA_CHAIN_PATH_LENGTH: {
    meaning:
      'A CA on the TSA\'s path to the pinned root (an intermediate or the root itself) was not allowed to have so many CAs below it: its basicConstraints pathLenConstraint is exceeded (e.g. a sub-CA below an intermediate with pathlen 0), which `openssl ts -verify` refuses as "path length constraint exceeded". (An issuer that is not a CA at all, or whose keyUsage lacks keyCertSign, gives no path: TSA_CHAIN_UNTRUSTED.)',
    next: 'The witness was issued outside what its CA allowed: do not use this TSA; obtain a token from a TSA whose certificate path is valid.',
  },
  TSA_CHAIN_CRITICAL_EXTENSION: {
    meaning:
      'A certificate on the TSA\'s path (the signer, an intermediate or the root) carries a critical extension prereg does not process (unknown, or one it does not enforce): RFC 5280 §4.2 requires rejecting it, and `openssl ts -verify` says "unhandled critical extension" for the unknown ones (docs/trust.md lists the ones processed).',
    next: 'Do not use this TSA: its certificates carry a constraint no verifier here honours; obtain a token from a TSA whose certificates carry none.',
  },
  TSA_EKU_MISSING: {
    meaning:
      'The signer certificate is not issued for timestamping as RFC 3161 §2.3 requires (and `openssl ts -verify` checks): one critical extendedKeyUsage whose only purpose is id-kp-timeStamping (1.3.6.1.5.5.7.3.8), and a keyUsage, if any, of digitalSignature/nonRepudiation only.',
    next: 'Obtain the token from a TSA whose certificate is issued for timestamping.',
  },
  TSA_TRUST_INVALID: {
    meaning:
      'A pinned TSA root file (tsa_roots) or a supplied TSA certificate file (tsa_certs) holds no certificate or a certificate that does not parse.',
    next: 'Put PEM certificates (-----BEGIN CERTIFICATE-----) in the file named in the message.',
  },
  // --- end RFC 3161 ------------------------------------------------------------------------

  // --- study files and the freeze (SPEC §4) -------------------------------------------------
  STUDY_INVALID: {
    meaning: 'preregistration/study.json does not follow schemas/study.schema.json or has an invalid pattern or window.',
    next: 'Fix the fields listed in the message.',
  },
  STUDY_SYSTEMS_UNREGISTERED: {
    meaning:
      'study.json registers no systems, so no proof is bound to a system: copied evidence is then EVIDENCE_REUSED on the original as well as on the copy, and a copier cancels the original\'s proven credit. freeze (and check-anchors\'s plan checks) refuse it unless a prereg.study/2 declares "binding": "none"; init and doctor warn.',
    next: 'Before the freeze, list each system with the buyer fingerprints of its ArkForge keys in study.json `systems` (docs/preregistration.md), or declare "binding": "none" knowingly (a weakened mode the audit\'s verdict names).',
  },
  ITEMS_INVALID: {
    meaning: 'The public items file (corpus/items.jsonl) has a line that is not a valid item, or an item_id twice.',
    next: 'Fix the lines listed in the message (see schemas/items.schema.json).',
  },
  CORPUS_PATH_UNSAFE: {
    exit: EXIT.conflict,
    meaning:
      'The corpus (or trust directory) holds a symlink, device, FIFO or socket, a name that is not UTF-8, or two names equal after Unicode normalisation.',
    next: 'Replace the named path by a regular file with a unique UTF-8 name.',
  },
  CORPUS_FILE_UNKNOWN: {
    exit: EXIT.failures,
    meaning: 'The named file is not part of the frozen corpus.',
    next: 'Give a corpus-relative path exactly as listed in freeze.json.',
  },
  CORPUS_PROOF_INVALID: {
    meaning: 'A corpus inclusion proof does not reach the frozen corpus root, or the file is not the proven leaf.',
    next: 'Obtain a fresh proof with `prereg corpus-proof PATH`; a proof that fails is not evidence of membership.',
  },
  CORPUS_PROOF_MALFORMED: {
    meaning:
      'A file given to `prereg corpus-proof --verify` is not a prereg.corpus-proof/1 document (a member missing, of the wrong type, or a hash that is not 64 hex digits).',
    next: 'Pass the JSON document `prereg corpus-proof PATH --json` wrote, unchanged.',
  },
  SECTION5_MISSING: {
    meaning: 'PREREGISTRATION.md has no level-2 heading starting with "5" (the analysis plan).',
    next: 'Add "## 5. Analysis plan" holding the scoring SQL in ```sql blocks.',
  },
  INIT_TARGET_EXISTS: {
    exit: EXIT.conflict,
    meaning: '`prereg init` was given a study directory or a private directory that exists and is not empty; it never writes over files.',
    next: 'Pass a new or empty DIR (and --private-dir), or remove the old one yourself.',
  },
  FREEZE_EXISTS: {
    exit: EXIT.conflict,
    meaning: 'preregistration/freeze.json already exists; refreezing changes freeze_digest and invalidates its anchors.',
    next: 'Amend only before the study opens: `prereg freeze --replace --reason TEXT` (the replaced freeze is kept under preregistration/amendments/), then anchor again.',
  },
  FREEZE_MISSING: {
    meaning: 'preregistration/freeze.json does not exist.',
    next: 'Run `prereg freeze` first.',
  },
  FREEZE_INVALID: {
    meaning: 'preregistration/freeze.json does not follow schemas/freeze.schema.json.',
    next: 'Restore freeze.json from version control; never edit it by hand.',
  },
  ANSWER_KEY_REF_UNKNOWN: {
    meaning:
      "The answer key expects a ref (a citation, or an amount's ref) that no corpus heading declares: it is not in the frozen vocabulary, so no answer could ever be grounded in it and every system would fail the item. freeze refuses, writing nothing.",
    next: 'Correct the ref in the answer key (the identifier as its heading writes it), or add the article to the corpus, then freeze.',
  },
  ANSWER_KEY_AMOUNT_NOT_IN_CORPUS: {
    meaning:
      'The answer key expects an amount that the frozen text of the article it names (its ref) does not contain, read with the study\'s amount pattern and separators as the classify stage reads a served passage: every system that writes the article\'s real amount would fail the item. An amount marked "derived" (computed: a sum, a conversion) is exempt and listed in the report. freeze refuses, writing nothing.',
    next: 'Correct the amount or its ref in the answer key; if the amount is computed from the text, mark it "derived" with its derivation in words. Then freeze.',
  },
  ANSWER_KEY_NEGATIVE_EXPECTS: {
    meaning:
      'A negative item (one that expects a refusal) expects refs or amounts: the key contradicts itself. freeze refuses, writing nothing.',
    next: 'Make the item positive, or empty its expected_refs and expected_amounts, then freeze.',
  },
  SECTION5_SYSTEM_UNKNOWN: {
    meaning:
      'Section 5 names a system (a literal compared with system_id, system_a, system_b or winner) that study.json does not register: whatever it computes for that name bears on nobody, and a hypothesis over it is undecided. A warning of doctor; nothing is refused.',
    next: "Write the hypotheses over the registered systems (the example's section 5 reads registered_systems), or register the system before the freeze.",
  },
  VOCABULARY_HEADING_UNMATCHED: {
    meaning:
      'A Markdown heading of the corpus contains an identifier of a shape study.json declares (vocabulary.shape_patterns), but no heading pattern matches it: the identifier is not in the vocabulary, so a citation of it is a PHANTOM, never grounded. A warning (freeze and doctor); nothing is refused.',
    next: 'If the heading declares a citable article, widen vocabulary.heading_patterns (or fix the heading) before the freeze; if it does not, leave it.',
  },
  VOCABULARY_ID_DUPLICATE: {
    meaning:
      'Two headings of the corpus declare the same identifier (the message names both: file and line). Which article a citation of it names, and which passage proves it served, would depend on the order of the corpus paths: the genuine article could be shadowed by another text. freeze refuses, writing nothing; doctor and check-anchors report it; classify, score and run refuse to score a corpus frozen so by another tool.',
    next: 'Keep one heading per identifier: remove or rename the other declaration (an older version belongs under a heading the patterns do not declare), then freeze.',
  },
  ANSWER_KEY_INVALID: {
    meaning: 'The answer key has an invalid line, a duplicate item, or does not cover exactly the frozen items.',
    next: 'Fix the lines listed (see schemas/answer-key.schema.json).',
  },
  ANSWER_KEY_SECRET_MISSING: {
    meaning: 'No answer-key secret was given.',
    next: 'Pass --secret-file FILE or set $PREREG_ANSWER_KEY_SECRET (never commit a real secret); after the deadline, reveal it as inputs/answer-key.secret.',
  },
  ANSWER_KEY_SECRET_WEAK: {
    meaning: 'The answer-key secret is shorter than 16 bytes.',
    next: 'Use a long random secret, e.g. `openssl rand -hex 32`.',
  },

  // --- drift: what check-anchors and the scoring preflight refuse (SPEC §4.2–4.4) ---------------
  CORPUS_DRIFT: {
    meaning: "A corpus file was added, removed or changed since the freeze (or freeze.json's corpus fields were edited).",
    next: 'Restore the named file; a changed corpus needs a new freeze and new anchors before the study opens.',
  },
  VOCABULARY_DRIFT: {
    meaning: 'The identifiers declared by the corpus headings differ from the frozen vocabulary.',
    next: 'Restore the corpus headings or study.json heading patterns.',
  },
  SECTION5_DRIFT: {
    meaning: 'Section 5 of PREREGISTRATION.md (the analysis plan) differs from the frozen one.',
    next: 'Restore section 5 exactly as frozen; scoring refuses to run any other analysis.',
  },
  PREREGISTRATION_DRIFT: {
    meaning:
      'A section of PREREGISTRATION.md outside section 5 (or the text before its first section) differs from the frozen one, or was added, removed or moved: the plan as a whole is frozen, not only its SQL.',
    next: 'Restore the section exactly as frozen; before opens_at an amendment (`prereg freeze --replace --reason TEXT`, then anchor) may change it, after opens_at a deviation is recorded in the deviations log, never in the plan.',
  },
  STUDY_DRIFT: {
    meaning: "preregistration/study.json differs from the frozen one (or freeze.json's window or study id disagree with it).",
    next: 'Restore study.json as frozen.',
  },
  TOOL_DRIFT: {
    meaning:
      'The study was frozen by another prereg version than the one running: the tool is part of the frozen plan, and another version may classify or score differently.',
    next: 'Install the prereg version freeze.json names (tool.version) and rerun with it; a study cannot be scored or audited by another version.',
  },
  TRUST_DRIFT: {
    meaning: 'A file of preregistration/trust/ was added, removed or changed since the freeze.',
    next: 'Restore the named file: the trust policy is pinned before the study.',
  },
  ARKFORGE_KEYS_INVALID: {
    meaning:
      "The file given to `prereg trust import-arkforge` is not ArkForge's published key history ({keys: [{kid, type: Ed25519, public, valid_from, retired_at}], rekor_keys: [{kid, type: ECDSA-P256-SHA256, public_pem, valid_from, retired_at}]}): bad JSON, a missing member, an unknown type, a key that does not decode, a date that is not ISO-8601 UTC, an empty window or a kid given twice. Nothing was written.",
    next: 'Fix or fetch again the field the message names (file and field); see docs/trust.md.',
  },
  ARKFORGE_KEYS_TOO_LARGE: {
    meaning:
      "The file given to `prereg trust import-arkforge` is larger than the cap on a published key history (8 MiB, thousands of times ArkForge's own file), checked before a byte of it is parsed. Nothing was written.",
    next: "Check that the file is ArkForge's published_keys.json; a real key history is a few kilobytes (docs/trust.md).",
  },
  ARKFORGE_KEY_CONFLICT: {
    exit: EXIT.conflict,
    meaning:
      'Importing the published key history would change what the operator pinned: a key id already pinned with another key (or its submitter key file exists with other content), the same key already pinned under another key id, or a published window wider than the pinned one. Nothing was written.',
    next: 'Find out which key is right; remove or rename the pinned entry (and its file) by hand if the published one is, then import again.',
  },
  TRUST_POLICY_INVALID: {
    meaning:
      'preregistration/trust/policy.json does not follow schemas/trust-policy.schema.json or names a file outside the trust directory.',
    next: 'Fix the policy as the message says (before freezing).',
  },
  TRUST_SELLERS_MISSING: {
    meaning:
      'preregistration/trust/policy.json does not say whose proofs can prove a passage served: it lists no `sellers` (the identities of the study\'s retrieval services) and does not declare `"sellers": "any"` (SPEC §12.4). freeze and check-anchors refuse it; nothing is written.',
    next: 'Add `"sellers": ["<the seller your retrieval service\'s proofs bind>"]` to the policy (or, knowingly, the weakened `"sellers": "any"`), then freeze.',
  },
  VOCABULARY_EMPTY: {
    meaning:
      'The heading patterns of study.json (or one of them, as the message says) match no heading of the corpus documents: no citation could ever be grounded.',
    next: 'Fix vocabulary.heading_patterns (each needs a named group `id` and must match a heading line such as "## Article R2152-2") or corpus.documents_suffix, then freeze.',
  },
  COMMITMENTS_MISSING: {
    meaning:
      "The trust policy requires receipt chains (require_receipts) but there are no commitments: neither inputs/commitments.jsonl (collected by the operator) nor a system's own inputs/commitments/<system_id>.jsonl (received through intake) exists, so every chain would be UNANCHORED and every proven score 0, a wrong result rather than a missing one.",
    next: "Take the systems' commitments in through intake (`submission sign --kind commitments`) or put the ones collected when submissions closed in inputs/commitments.jsonl, then run again. Nothing was written.",
  },
  COMMITMENTS_FILE_CHANGED: {
    meaning:
      'inputs/commitments.jsonl changed while verify ran: the stage reads it after the evidence items (to keep memory down), and it was no longer the file whose digest the run records. Nothing was recorded as verified.',
    next: 'Inputs must not change during a run: finish writing inputs/commitments.jsonl, then run verify again.',
  },
  SUBMISSIONS_EMPTY: {
    meaning:
      'inputs/submissions/ holds no submission line (no *.jsonl file, or only empty files): a run would publish signed outputs of nothing.',
    next: 'Put the received submissions (*.jsonl) in inputs/submissions/, then run again. Nothing was written.',
  },
  ANSWER_KEY_COMMITMENT_MISMATCH: {
    meaning:
      'The revealed answer key (with its secret) does not reproduce the frozen commitment: an item, a field, the order or the secret differs.',
    next: 'Reveal exactly the key and secret that were committed; scoring refuses any other key.',
  },

  // --- anchors (SPEC §4.4) ------------------------------------------------------------------------
  ANCHOR_INVALID: {
    exit: EXIT.failures,
    meaning: 'An anchor token does not verify as a witness of the current freeze_digest (see the TSA_* codes with it).',
    next: 'If freeze.json changed, restore it; otherwise re-anchor with `prereg anchor`.',
  },
  ANCHOR_AFTER_OPEN: {
    meaning: "An anchor token's genTime is not before the study's opens_at: it cannot show the freeze preceded submissions.",
    next: 'Nothing can repair a late anchor; report it, and anchor earlier next time.',
  },
  AMENDMENT_AFTER_OPEN: {
    meaning:
      "An amendment's anchor (freeze.json naming the freeze it replaces, `amends`) is dated at or after the earliest opens_at of its chain: the plan was changed once the window had opened.",
    next: 'Nothing can repair it: a change after the window opened is a deviation (recorded in the deviations log), not an amendment. Restore the freeze the chain began with and record the change as a deviation.',
  },
  FREEZE_CHAIN_BROKEN: {
    meaning:
      'The chain of freezes does not hold: freeze.json (or a kept one) amends a freeze_digest no preregistration/amendments/<n>/freeze.json has, a kept freeze is unreadable, of another study, or amended by no freeze of the chain.',
    next: 'Restore preregistration/amendments/ as `prereg freeze --replace --reason` left it (every replaced freeze.json and its anchors, byte for byte).',
  },
  ANCHOR_METADATA_MISMATCH: {
    meaning:
      "An anchor's metadata (preregistration/anchors/<witness>.json) is missing, unreadable, or contradicts its token: tsr_sha256 is not the token's SHA-256, freeze_digest is not the freeze's, witness is not the file's name, or retrieved_at is before the token's genTime.",
    next: 'Restore the metadata written by `prereg anchor` (or re-import the token with `prereg anchor --import`); the witness named in the report is taken from it.',
  },
  ANCHOR_INSUFFICIENT: {
    exit: EXIT.failures,
    meaning:
      "Fewer independent witnesses confirm freeze_digest than required: at least one, the study's anchors.min_witnesses, or --min-witnesses, whichever is highest. Witnesses are counted by distinct TSA root, and with --tsa-root only under the roots given; the message says how many more verify only under the study's own roots.",
    next: 'Operator: run `prereg anchor` against more TSAs (before opens_at). Auditor: obtain, out of band, the root of each witness the message names as trusted only by the study, and pass it with --tsa-root if you trust it.',
  },
  FREEZE_DIGEST_UNEXPECTED: {
    exit: EXIT.failures,
    meaning:
      "The study's freeze_digest (SHA-256 of canonical freeze.json) is not the one given with --expect-freeze: the study was frozen again, or the digest you hold is of another study.",
    next: 'Compare with the digest published before opens_at; a study re-frozen after it opened is not the pre-registered one.',
  },
  FREEZE_DIGEST_UNPINNED: {
    exit: EXIT.failures,
    meaning:
      "Nothing the operator does not control pins the freeze digest: no --expect-freeze was given, and no participant's sealed intake receipt (--receipt) names the freeze. The study's own files and anchors could have been made again after the fact, consistently.",
    next: 'Pass --expect-freeze with the freeze_digest you saw published before opens_at, or --receipt with a receipt a participant gave you (docs/audit.md, "The audit trusts only what the auditor supplies").',
  },
  TSA_RESPONSE_TOO_LARGE: {
    meaning:
      'A TSA answered more than 1 MiB; a timestamp response is a few KiB, so the body was cut off unread (it is given as the reason that TSA failed).',
    next: 'Check the TSA URL (it may not be an RFC 3161 endpoint); use another TSA.',
  },
  TSA_UNAVAILABLE: {
    meaning:
      'No TSA is configured (study.json anchors.tsas is empty and no --tsa was given), or too few TSAs answered with a valid token after retries; nothing was written.',
    next: 'With no TSA configured: pass `--tsa NAME=URL` (a TSA whose root the trust policy pins), or import a token obtained elsewhere with `--import FILE.tsr --witness NAME`. Otherwise check the TSA URLs and the network, then run `prereg anchor` again.',
  },

  // --- AER-1 timelines, commitments and receipts (SPEC §5.2) — pipeline/evidence/aer1/ ---------
  CHAIN_MALFORMED: {
    meaning:
      'The AER-1 timeline is not well-formed: not a JSON array nor an envelope {"format": "aer-1", "revision", "entries"}, an entry not an object, or a member missing or of the wrong type or shape (id, job_id, tool non-empty strings; seq an integer; provenance_class one of the three classes; canonical_bytes strict padded base64; prev_digest 64 lowercase hex; close a boolean). Under revision 06 seq, job_id, tool and provenance_class may be absent, but seq and job_id are on every entry or on none.',
    next: 'Fix the members named in the message; submit the timeline exactly as the agent tooling wrote it rather than editing it by hand.',
  },
  CHAIN_EMPTY: {
    meaning: 'The AER-1 timeline has no entries.',
    next: 'Submit the timeline with its entries, or omit `receipts` if the system kept none.',
  },
  CHAIN_GENESIS_INVALID: {
    meaning: "Entry 1's prev_digest is not 64 zeros: the timeline does not start at a genesis (its head may have been cut).",
    next: 'Submit the complete timeline from its first entry.',
  },
  CHAIN_SEQ_GAP: {
    meaning: "The entries' seq does not start at 1 and increase by exactly 1 (a gap, a repeat or a wrong start).",
    next: 'Submit every entry of the timeline, in order, as the agent recorded it.',
  },
  CHAIN_JOB_MISMATCH: {
    meaning: "An entry's job_id differs from entry 1's: entries of different jobs were mixed in one timeline.",
    next: 'Submit one timeline per job, each with its own entries only.',
  },
  CHAIN_CLOSE_MISPLACED: {
    meaning: 'close: true is on an entry that is not the last, or the last entry does not carry it.',
    next: 'Submit the timeline as closed by the agent; an unclosed timeline is incomplete.',
  },
  CHAIN_LINK_BROKEN: {
    meaning:
      "An entry's prev_digest is not the recomputed digest of the entry before it: an entry was changed, inserted or removed (or the timeline was built with another construction than the one it is read with, e.g. a -06 timeline given as a bare array).",
    next: 'Submit the timeline exactly as recorded, in the envelope declaring its revision if it is not -07/-08/-09; a broken link cannot be repaired after the fact.',
  },
  CHAIN_REVISION_UNSUPPORTED: {
    meaning:
      "The envelope declares an AER-1 revision other than 06–09, so its rules are unknown and it is not judged by another revision's.",
    next: 'Submit the timeline as a bare array (the current construction) or declare revision 06, 07, 08 or 09; a timeline of an unknown revision is never counted.',
  },
  COMMITMENT_MISSING: {
    meaning:
      "No external commitment (inputs/commitments.jsonl) names the timeline's job_id; a commitment inside the timeline itself is ignored.",
    next: 'Publish the final entry digest and entry count with a witness before submissions close, so the organizer can collect it.',
  },
  COMMITMENT_MALFORMED: {
    meaning:
      "A line of the commitments file is not a well-formed commitment {job_id, final_entry_digest (64 lowercase hex), entry_count (a JSON integer: 5, not 5.0), published_at (RFC 3339, a real date), and optionally witness, retrieved_via, retrieved_at}; it counts for nothing, the other lines still count. On a timeline: its job's commitment is malformed and no well-formed one anchors it.",
    next: 'Fix the line named (file:line) as the message says and rerun verify.',
  },
  COMMITMENT_TIMELINE_BROKEN: {
    meaning:
      '`prereg commitment` was given a timeline that breaks a chain rule (a CHAIN_* code: malformed, empty, a broken link, a seq gap, close misplaced…): a commitment to it would anchor nothing, so none is written.',
    next: 'Fix the timeline as the codes say (`prereg verify TIMELINE` lists every failed rule, docs/aer1.md), then compute its commitment again.',
  },
  COMMITMENT_COUNT_MISMATCH: {
    meaning: "The timeline's entry count differs from the committed one: entries were cut (tail or head) or added after publication.",
    next: 'Submit the timeline exactly as committed; a shortened or extended timeline is not anchored.',
  },
  COMMITMENT_FINAL_DIGEST_MISMATCH: {
    meaning:
      "The recomputed digest of the timeline's last entry differs from the committed final digest (the last entry was substituted, or the timeline was cut).",
    next: 'Submit the timeline exactly as committed; nothing can repair a timeline that differs from its commitment.',
  },
  COMMITMENT_CONFLICT: {
    meaning:
      "The timeline's job was committed in more than one way before closes_at by commitments that count for it: the owner's own (signed by one of its agent_keys, or submitted by it through intake as inputs/commitments/<system_id>.jsonl) and the one matching the timeline name different final entry digests or entry counts, so none of them shows which timeline existed when submissions closed (the owner could have chosen afterwards). A commitment binding no owner never conflicts (COMMITMENT_FOREIGN).",
    next: 'Check with the witness which commitment the owner really published; an owner committing to two timelines for one job is anchored by neither.',
  },
  COMMITMENT_FOREIGN: {
    meaning:
      "A well-formed commitment names the timeline's job_id with another final entry digest or entry count, and binds nothing of the timeline's owner (not signed by one of its agent_keys, not submitted by it through intake): anyone can publish one, so it cancels nothing (SPEC §12.3). Informational: the status is unaffected; a matching commitment still anchors the timeline.",
    next: 'Nothing to fix for the owner. To make its own commitments count against it (and for it), a system signs them with its agent key or submits them through intake.',
  },
  COMMITMENT_SIGNATURE_INVALID: {
    meaning:
      "A commitment of the timeline's job carries a signature that verifies with no registered agent key (Ed25519 over the canonical commitment without its signature member): it is read as unsigned, so it binds no owner. Informational: the status is unaffected.",
    next: 'Sign the canonical commitment without its signature member with an agent key registered in study.json (base64url, no padding), or leave the signature out.',
  },
  COMMITMENT_LATE: {
    meaning:
      "The matching commitment was published at or after the study's closes_at, so it does not show the timeline existed before submissions closed.",
    next: 'Nothing can repair a late commitment; publish commitments before closes_at next time.',
  },
  COMMITMENT_TIME_IMPLAUSIBLE: {
    meaning:
      "The matching commitment's published_at (its committer's claim) cannot be true: it is before the study's opens_at, or after the date its witness gave the file holding it (the TSA date of the intake entry that took a system's own commitments in; the seal's for the operator-collected inputs/commitments.jsonl), or after the commitment's own retrieved_at. The timeline is not anchored: a backdated commitment shows nothing about when the timeline existed.",
    next: 'Publish the commitment during the study window and give the time it was really published; a system sends its commitments through intake after publishing them (docs/aer1.md, "When a commitment was published").',
  },
  RECEIPT_MALFORMED: {
    meaning:
      'A single AER-1 receipt does not pass the draft\'s core check: a member missing or of the wrong shape (id a lowercase UUID, receipt_schema_version non-empty, created_at RFC 3339 with a real date, tool {name, version, scope} non-empty strings, provenance_class one of the three classes, canonical_bytes strict base64 of UTF-8, output_hash "sha256:" + 64 lowercase hex, verification_status "verified").',
    next: "Fix the members named in the message; a conformant receipt is still only its producer's statement.",
  },
  RECEIPT_OUTPUT_HASH_MISMATCH: {
    meaning: "A single AER-1 receipt's output_hash is not the SHA-256 of its decoded canonical_bytes: the bytes or the hash were altered.",
    next: 'Submit the receipt exactly as produced; nothing can repair an altered receipt.',
  },
  // --- end AER-1 -------------------------------------------------------------------------------

  // --- ArkForge proofs (SPEC §6.1) — pipeline/evidence/arkforge/ --------------------------
  PROOF_MALFORMED: {
    meaning:
      'The proof (or evidence item) does not follow schemas/proof.schema.json: a required field is missing or ill-formed (hashes are sha256: + 64 lowercase hex, timestamps ISO-8601 UTC), payment and certification_fee differ, or a body is not JSON.',
    next: 'Read the problems listed with the proof; submit the proof exactly as the issuer served it, with its request and response bodies as JSON.',
  },
  PROOF_SPEC_VERSION_UNKNOWN: {
    meaning: "The proof's spec_version names no chain-hash algorithm this verifier knows, so its chain hash cannot be recomputed.",
    next: 'Check the spec_version against the proof-spec; a newer version needs a newer verifier, never a guess.',
  },
  PROOF_REQUEST_HASH_MISMATCH: {
    meaning: 'SHA-256 of the canonical JSON of the request body differs from hashes.request: the body is not the one the proof covers.',
    next: 'Submit the request body exactly as sent (any key order and whitespace, but the same values); an edited body is not evidence.',
  },
  PROOF_RESPONSE_HASH_MISMATCH: {
    meaning:
      'SHA-256 of the canonical JSON of the response body differs from hashes.response: the passages are not the ones the proof covers.',
    next: 'Submit the response body exactly as received; an edited response is not evidence.',
  },
  PROOF_CHAIN_MISMATCH: {
    meaning:
      "The chain hash recomputed from the proof's fields (by its spec_version's algorithm) differs from hashes.chain: a chain-bound field was changed after issue.",
    next: 'Submit the proof exactly as issued; nothing can repair a changed proof.',
  },
  PROOF_PREIMAGE_REDACTED: {
    meaning:
      "The proof is the issuer's public view (spec below 3.0): it publishes neither the buyer fingerprint nor the transaction id, so its chain hash cannot be recomputed. The signature, token and log entry are still checked over the declared chain hash, but the request and response hashes are bound by nothing: no body is proven by this proof.",
    next: 'Submit the full proof as the issuer returned it to the buyer (with parties.buyer_fingerprint and the transaction block), or a spec 3.x proof with the hash commitments opened; filling in the fields by hand does not help (made-up values give PROOF_CHAIN_MISMATCH).',
  },
  PROOF_SIGNATURE_MISSING: {
    meaning: 'The proof carries no arkforge_signature, so its origin is not established.',
    next: 'Submit the signed proof as the issuer served it.',
  },
  PROOF_SIGNATURE_INVALID: {
    meaning:
      'arkforge_signature verifies over the declared chain hash with no key at all — neither a pinned key nor the embedded arkforge_pubkey.',
    next: 'The signature or hashes.chain was altered or damaged; obtain the proof again from the issuer.',
  },
  PROOF_KEY_UNTRUSTED: {
    meaning:
      "The signature verifies only with a key that does not count: the embedded arkforge_pubkey that is not pinned, or a pinned key whose window [valid_from, valid_until) does not contain the proof's timestamp (or its token's genTime).",
    next: "If the key is genuinely the issuer's, it had to be pinned (with its window) in preregistration/trust/ before the freeze; otherwise the proof is not evidence.",
  },
  PROOF_TSA_MISSING: {
    meaning: 'The trust policy requires an RFC 3161 token per proof and timestamp_authority.tsr_base64 is absent or empty.',
    next: 'Submit the proof after its token was attached (the issuer adds it shortly after issue).',
  },
  PROOF_TSA_INVALID: {
    meaning:
      "The proof's RFC 3161 token does not verify as a witness of its chain hash (see the TSA_* codes reported with it: malformed, rejected, imprint, signature, signer binding or EKU).",
    next: 'Obtain the proof again with its original token; a token over another hash or an altered token is not evidence.',
  },
  PROOF_TSA_UNTRUSTED: {
    meaning:
      "The proof's RFC 3161 token is not established by the pinned trust material: it does not chain, at its genTime, to a TSA root pinned in preregistration/trust/, or its signer certificate is neither carried by the token nor supplied by the policy's tsa_certs (TSA_SIGNER_NOT_FOUND; FreeTSA's tokens carry none).",
    next: "Pin the TSA's root before the freeze if it is meant to be trusted, and supply its signing certificate in tsa_certs when its tokens carry none; otherwise the token does not establish the time.",
  },
  PROOF_TIME_OUTSIDE_WINDOW: {
    meaning:
      "The proof's timestamp, or its verified token's genTime, lies outside the study window [opens_at, closes_at), or genTime differs from timestamp by more than the policy's max_skew_seconds.",
    next: 'Only proofs issued, and timestamped, during the study window count; check the window and the skew in the message.',
  },
  // --- end ArkForge proofs ------------------------------------------------------------------
  // --- Ingest (SPEC §5.1) — pipeline/ingest/, pipeline/stages/ingest.ts and validate.ts -----------
  LINE_TOO_LONG: {
    meaning:
      'A submission line is longer than the line limit (4 MiB by default, --max-line-bytes); it was skipped unread up to its newline.',
    next: 'Shorten the line (e.g. move large bodies out of the answer) or, if the study allows it, rerun with a larger --max-line-bytes.',
  },
  LINE_EMPTY: {
    meaning: 'A submission file has an empty line; every line of a JSONL file must hold one JSON object.',
    next: 'Remove the empty line (a single newline at the end of the file is fine).',
  },
  LINE_NOT_UTF8: {
    meaning: 'A submission line is not valid UTF-8 (the message gives the first bad byte).',
    next: 'Re-encode the file as UTF-8.',
  },
  LINE_CRLF: {
    meaning: 'A submission line ends in "\\r": the file has CRLF (Windows) line endings.',
    next: 'Convert the file to "\\n" line endings (e.g. `dos2unix FILE`).',
  },
  SUBMISSION_CONFIG_TOO_LARGE: {
    meaning:
      "A submission line's `config` is larger than 1 KiB as canonical JSON: a configuration names what produced the line (model, temperature, a prompt digest), it does not carry it.",
    next: 'Keep config to a few short members; put a digest of a long prompt, not the prompt.',
  },
  NOISE_FLOOR_EXCEEDED: {
    meaning:
      'A replicate campaign (study.json systems[].replicate_of: a system run again, alike) and its original differ by more than chance: their own sign test reaches alpha (results.json noise_floor). Two identical campaigns should disagree only by noise; these were not one system, or not run alike, so the noise floor they give is not a floor.',
    next: "Find what differed between the two campaigns (configuration, retrieval service, date); read the system's comparisons knowing its noise floor is unreliable.",
  },
  CONFIG_VARIES: {
    meaning:
      "A system's records carry more than one configuration (their `config` differs between attempts, or some carry one and others none). Listed in results.json (coverage.configurations) and named as a caveat on each of its comparisons; it voids nothing, and the attempts still count as the protocol declares them.",
    next: 'Read its comparisons knowing they mix configurations; a system should run every attempt of a campaign alike.',
  },
  SUBMISSION_FORMAT_UNKNOWN: {
    meaning: 'A submission line has a "format" other than "prereg.submission/1", so it is not read as a submission at all.',
    next: 'Write "format": "prereg.submission/1" and the fields of docs/submission.md.',
  },
  SUBMISSION_SCHEMA: {
    meaning:
      'A submission line does not follow schemas/submission.schema.json (missing or unknown field, wrong type, bound exceeded), or a string or key of the line (answer.text, an evidence body) holds a lone surrogate escape and so is not Unicode text.',
    next: 'Fix the fields listed in the message; run `prereg validate FILE` before sending.',
  },
  SUBMISSION_ITEM_UNKNOWN: {
    meaning: 'A submission line answers an item_id that is not among the frozen items of corpus/items.jsonl.',
    next: 'Use the item ids of the published corpus/items.jsonl exactly.',
  },
  SYSTEM_UNREGISTERED: {
    meaning:
      'A submission line names a system_id that the frozen study.json does not register: its evidence could be bound to no system, and it would be scored and pooled into the hypotheses beside the registered ones (SPEC §12.5). The line is rejected; the others go on.',
    next: 'Submit under the system_id the study registered; a system must be registered before the freeze.',
  },
  ATTEMPT_OUT_OF_PROTOCOL: {
    meaning:
      "A submission line's attempt is beyond the frozen protocol's attempts per item (study.json protocol.attempts_per_item): an extra attempt would let a system keep its best. The line is rejected; the others go on.",
    next: 'Submit attempts 1 to protocol.attempts_per_item of each item only.',
  },
  JOB_NOT_SUBMITTED: {
    meaning:
      "A commitment that binds a system (signed by one of its agent_keys, or submitted by it through intake) names a job none of the system's records submits a timeline for: an attempt made and not submitted. Listed in coverage (results.json, report); the scores are unaffected. A commitment binding nobody never counts here, so nobody can make a rival look as if it hid an attempt.",
    next: 'Read the job in results.json coverage.jobs_not_submitted: the system made an attempt it did not submit.',
  },
  EXPECTED_TOOL_MISSING: {
    meaning:
      "A record's AER-1 timeline does not log the study's expected tools (study.json protocol.expected_tools, under the names its system registered in tool_names) as a subsequence of its entries: an expected action, such as retrieval before generation, is missing or out of order. The timeline's anchoring status is unchanged; with the trust policy's require_receipts the record earns no proven credit (none of its passages is proven served). Listed in results.json coverage.expected_tools_missing and counted per system (coverage.systems[].expected_tools_missing).",
    next: "Nothing to do for the study; a participant logs each expected action in the job's timeline, under the names it registered before the freeze.",
  },
  REFUSAL_FLAG_DISAGREES: {
    meaning:
      "A record's `refused` flag (the system's declaration) disagrees with the refusal judged from its answer as written (SPEC §13.1: the frozen refusal_pattern matches with at most refusal.max_tail_chars characters outside the match, no amount, not truncated, and every citation served to the record): a refusal flagged on an answer, or an unflagged refusal. The flag is never the class: both columns take the judgement. Listed in results.json coverage.refusal_flags_disagreeing and the report; `prereg validate` reports it before a participant sends the file.",
    next: 'Nothing to do for the study; a participant sets `refused` to what its answer says.',
  },
  SUBMISSION_DUPLICATE: {
    meaning:
      'A later submission line repeats an accepted (system_id, item_id, attempt); the first line is kept and this one rejected, never merged.',
    next: 'Number repeated answers to the same item with distinct attempts (1, 2, …), and send each once.',
  },
  STUDY_TOO_MANY_SYSTEMS: {
    meaning:
      'The accepted submission lines name more distinct system_ids than the study accepts (study.json limits.max_systems, default 100); sign tests compare every pair, so the outputs would grow with the square of the count. Nothing was ingested.',
    next: 'Remove the extra systems, or raise limits.max_systems in preregistration/study.json before the freeze if the study means to compare that many.',
  },
  SUBMISSION_PATH_UNSAFE: {
    exit: EXIT.conflict,
    meaning:
      'An entry of inputs/submissions/ would not be read as it looks: a *.jsonl that is not a regular file (a symlink, directory, device), a name ending in another case of ".jsonl" (sys-a.JSONL), a subdirectory, or a name that is not UTF-8.',
    next: 'Put each submission in a regular file directly in inputs/submissions/, named *.jsonl in lower case, with a UTF-8 name.',
  },
  SUBMISSION_FILE_CHANGED: {
    meaning: 'A submission file changed while ingest was reading it; nothing was written.',
    next: 'Inputs must not change during a run: wait until the file is complete, then run ingest again.',
  },
  // --- end Ingest ------------------------------------------------------------------------------
  // --- Sealed intake (SPEC §12.2) — pipeline/intake/, pipeline/evidence/intake/, stages intake, seal, submission; docs/intake.md
  STUDY_AGENT_KEY_INVALID: {
    meaning:
      "A system's agent key in study.json is not an Ed25519 public key (ed25519:<base64url of 32 bytes>), or its `possession` is not that key's signature over canonical {study_id, system_id}: nobody showed they hold the key. Nothing was written.",
    next: 'Have the participant sign canonical {"study_id": …, "system_id": …} with the key (docs/intake.md, "Registering agent keys") and put the base64url signature in `possession`; then freeze.',
  },
  STUDY_TOOL_NAME_UNKNOWN: {
    meaning:
      "A system's tool_names in study.json renames a tool that is not one of protocol.expected_tools (or the study declares none): it renames nothing, and a misspelt registration would leave the expected tool looked for under the protocol's own name. Nothing was written.",
    next: 'Key tool_names by the exact names of protocol.expected_tools (docs/aer1.md, "Expected tools"), or remove the entry; then freeze.',
  },
  STUDY_AGENT_KEY_SHARED: {
    meaning:
      "The same agent key is registered for two systems: a request it signs could be either system's, so neither could be told apart. Nothing was written.",
    next: 'Give each system its own key pair; remove the duplicate from study.json before the freeze.',
  },
  STUDY_LOCKED: {
    exit: EXIT.conflict,
    meaning:
      "Another prereg command holds the study lock (work/prereg.lock): ingest, verify, classify, score, emit, run, intake and seal write work/, outputs/, the intake log or the seal, and two at once could interleave or remove each other's temporary files. Nothing was written.",
    next: 'Wait for the other command (the message names its command, pid and start) to finish, then run again. A lock whose process is gone is taken over by the next command; remove work/prereg.lock by hand only when its pid names no prereg process.',
  },
  INTAKE_REQUEST_INVALID: {
    meaning:
      "The intake request is not a prereg.intake-request/2 document (a member missing, misspelt or of the wrong type), names another study, or its file cannot be found beside it. A prereg.intake-request/1 (made before requests carried a version) is refused too: it cannot say which of the system's files is the newest. Nothing was written.",
    next: 'Make the request again with `prereg submission sign FILE --key K --system ID` (with `--supersedes PREVIOUS.intake.json` when the system already sent a file of this kind), and send it with its file.',
  },
  INTAKE_REQUEST_STALE: {
    exit: EXIT.failures,
    meaning:
      "The request is not the successor of the last request taken in for its system and kind: its version is not one more than that request's, or it does not name that request's digest as the one it supersedes. An older request replayed after a newer one is refused so: only the participant says which of its files is the newest. Nothing was written; in a log, such an entry fails the audit's intake rail.",
    next: "Take in only the participant's newest request; the participant signs its next file with `prereg submission sign … --supersedes LAST.intake.json` (the last request the operator took in, its receipt names it).",
  },
  INTAKE_REQUEST_WITHHELD: {
    exit: EXIT.failures,
    meaning:
      "A participant's signed request, dated before closes_at by a TSA the auditor trusts and signed by the system's registered agent key, is not in the sealed log, and neither is any later version of that system's requests of its kind: the operator did not take in a file the participant showed it had signed in time. INVALID.",
    next: "Publish the request, its token and the seal together: they show the file the operator left out. The study's result cannot be VALID without it.",
  },
  INTAKE_SIGNATURE_INVALID: {
    exit: EXIT.failures,
    meaning:
      "The intake request's signature does not verify with the key it names, or that key is not one of the requesting system's frozen agent_keys (a key of another system is refused: a system submits only its own files). Nothing was written.",
    next: "The participant signs again with one of its own registered keys (`prereg submission sign … --key` the system's private key).",
  },
  INTAKE_FREEZE_MISMATCH: {
    exit: EXIT.failures,
    meaning:
      "The request names another freeze_digest than the study's freeze.json: the participant signed for a study configuration other than the one in force. Nothing was written.",
    next: "Check which freeze the participant saw (the published freeze_digest); if the study's is right, the participant signs again against it.",
  },
  INTAKE_FILE_MISMATCH: {
    exit: EXIT.failures,
    meaning:
      'The file given with the request does not have the SHA-256 or the size the request signs: it is not the file the participant signed. Nothing was written.',
    next: 'Ask the participant for the file it signed (or a request signed over this file).',
  },
  SUBMISSION_SYSTEM_NOT_OWNER: {
    exit: EXIT.failures,
    meaning:
      'A line of a submission file received through intake names another system_id than the system whose key signed the request: a system submits lines for itself only. The whole intake is refused; nothing was written.',
    next: "The participant removes the other system's lines (line numbers in the message), signs again and resubmits.",
  },
  INTAKE_EARLY: {
    exit: EXIT.failures,
    meaning:
      "The intake entry's time — its TSA token's genTime, never the local clock — is before the study's opens_at: nothing may be taken in before the window opens. The intake was refused, nothing written; in a log, such an entry fails the audit's intake rail.",
    next: 'Send the request again once the window is open (after opens_at).',
  },
  INTAKE_LATE: {
    exit: EXIT.failures,
    meaning:
      "The intake entry's time — its TSA token's genTime, never the local clock — is at or after the study's closes_at: the submission came after the deadline. The intake was refused, nothing written; in a log, such an entry does not count.",
    next: 'Nothing to fix: the window is closed. An entry already logged late is reported by the audit.',
  },
  INTAKE_LOG_INVALID: {
    meaning:
      "inputs/intake.jsonl is not a valid chain: a line does not parse or has not the entry shape, a seq is out of order, a prev is not the previous entry's digest, or an entry's request is not signed by a key of its system. The log was written by something other than `prereg intake`, or edited.",
    next: 'Restore the log as `prereg intake` wrote it (the participants hold receipts for their entries); the message names the line.',
  },
  INTAKE_LOG_TOO_LARGE: {
    meaning:
      'inputs/intake.jsonl is larger than the limit on an intake log (128 MiB, tens of thousands of intakes), checked before a byte of it is read, or an intake would make it so (then nothing was written). A log is read only up to this size, so that no log can exhaust the memory of the command that reads it.',
    next: 'Check where the log came from: `prereg intake` writes one entry of a few KiB per file received, and a log this large was not written by it. A study that needs more intakes must be split into several studies.',
  },
  INTAKE_TOKEN_INVALID: {
    exit: EXIT.failures,
    meaning:
      "An intake entry's RFC 3161 token does not verify over the entry digest against the given TSA roots (the TSA_* codes say which check failed): the entry's time is not witnessed.",
    next: "Check the TSA roots given; the operator obtains tokens only from the study's TSAs.",
  },
  INTAKE_RECEIPT_INVALID: {
    meaning:
      'The receipt is not a prereg.intake-receipt/2 document (or a /1 one), its entry_digest is not the digest of the entry it carries, or it is for another study.',
    next: 'Use the receipt file `prereg intake` wrote, unchanged.',
  },
  INTAKE_RECEIPT_SIGNATURE_INVALID: {
    exit: EXIT.failures,
    meaning:
      "The receipt's signature does not verify with the intake key it names (a prereg.intake-receipt/1 names none: the study's pinned intake key): the receipt proves nothing.",
    next: 'Check the intake key used (--intake-key, or the frozen trust policy); a receipt edited after it was issued cannot be repaired.',
  },
  INTAKE_RECEIPT_NOT_SEALED: {
    exit: EXIT.failures,
    meaning:
      "The receipt's entry is not in the sealed log (no audit path from it to the seal's root): the operator acknowledged a submission and then left it out of the seal. INVALID: proof a submission was dropped.",
    next: "Publish the receipt and the seal together: they show the dropped submission. The study's result cannot be VALID without it.",
  },
  INTAKE_RECEIPT_EQUIVOCATION: {
    exit: EXIT.failures,
    meaning:
      'The receipt is signed by the operator (its identity key, or an intake key that identity certified) for this study, under a freeze the audited freeze chain does not account for: the operator acknowledged submissions under one freeze and published results under another. INVALID: proof of equivocation (SPEC §13.4); the message names both freeze digests.',
    next: "Publish the receipt beside the study: it shows two freezes of one study. The study's result cannot be VALID; only an amendment chain anchored before opens_at accounts for an earlier freeze.",
  },
  INTAKE_KEY_UNCERTIFIED: {
    meaning:
      "An intake key is neither the operator's identity key (operator_public_key, or the auditor's --operator-key) nor certified by it: no prereg.intake-key-certificate/1 for this study and key verifies under the identity. In a receipt, the receipt proves nothing (anyone can make a key); at freeze or intake, the pinned intake_public_key is refused.",
    next: 'Certify the intake key with the operator key before the freeze (`prereg trust certify-intake-key`, docs/trust.md); a participant keeps the receipt as received.',
  },
  INTAKE_RECEIPT_SUPERSEDED: {
    exit: EXIT.ok,
    meaning:
      "The receipt's entry is in the sealed log, but the same system later submitted another file of the same kind: the later one is the file that counts. Informational.",
    next: 'Nothing to fix, unless the participant never made the later request (then its key was used by someone else).',
  },
  INTAKE_DRIFT: {
    meaning:
      'A submission or commitments file differs from what the intake log or the seal records (changed, added or removed after it was received or sealed): the stage would read other files than the sealed ones. Nothing was written.',
    next: 'Restore the sealed files (the message names the file and both digests); files come in only through `prereg intake` before the seal.',
  },
  SEAL_EXISTS: {
    exit: EXIT.conflict,
    meaning: 'inputs/seal.json already exists: the intake is closed and sealed once. Nothing was written.',
    next: 'Nothing to do: a sealed study takes no more intake and no second seal.',
  },
  SEAL_EARLY: {
    exit: EXIT.failures,
    meaning:
      "The seal's token genTime is before closes_at: submissions were still open, so the seal would close the window early. Nothing was written.",
    next: 'Run `prereg seal` after closes_at.',
  },
  SEAL_LATE: {
    exit: EXIT.failures,
    meaning:
      "The seal's token genTime is after closes_at + intake.seal_within_s: the log stayed open past the frozen bound, long enough to be rewritten. Refused by seal, nothing written; in an audit, the seal does not count.",
    next: 'Nothing to fix for this study: report it. Seal within seal_within_s of closes_at next time.',
  },
  SEAL_INVALID: {
    meaning:
      "inputs/seal.json is not a prereg.seal/1 document, or its log root, head or entry count is not the intake log's, or one of its anchors does not verify over seal_digest.",
    next: 'Restore seal.json and inputs/anchors/ as `prereg seal` wrote them.',
  },
  SEAL_MISSING: {
    meaning:
      'The study declares sealed intake (study.json intake.mode "sealed", the study/2 default) and inputs/seal.json does not exist: the inputs are not closed, so run and emit score nothing (before closes_at as after it: nothing is scored before the seal) and reveal-check may not reveal the answer key. Nothing was written.',
    next: 'After closes_at, run `prereg seal` (within intake.seal_within_s of closes_at), then run again.',
  },
  WINDOW_OPEN: {
    meaning:
      "The study declares unsealed intake (every study/1, or intake.mode \"unsealed\") and its closes_at has not passed by this machine's clock: run and emit score nothing while submissions may still come in. The weaker guarantee: the clock is the operator's own, not a witness's (a sealed study's seal is dated by a TSA). Nothing was written.",
    next: "Run again after closes_at (the message names it); `prereg doctor` names the window's phase.",
  },
  SEAL_FREEZE_MISMATCH: {
    meaning:
      "inputs/seal.json names another freeze_digest than preregistration/freeze.json: the study was re-frozen after its inputs were sealed, or the seal is another study's.",
    next: 'Restore the freeze the seal names; a study is never re-frozen after its window opened.',
  },
  // --- end Sealed intake ---------------------------------------------------------------------
  // --- Deviations (SPEC §13.3) — pipeline/deviations/, pipeline/stages/deviation.ts; docs/deviations.md
  DEVIATION_LOG_INVALID: {
    meaning:
      "inputs/deviations.jsonl is not an unbroken chain of prereg.deviation/1 entries: a line does not parse or has not the entry shape, a seq is out of order, a prev is not the previous entry's digest, or an entry is dated before the one before it. An entry was removed, reordered or edited, or the log was written by something other than `prereg deviation`. Nothing was written; at audit, INVALID.",
    next: 'Restore the log as `prereg deviation` wrote it (the message names the line); a deviation is never removed, only followed by another.',
  },
  DEVIATION_SIGNATURE_INVALID: {
    exit: EXIT.failures,
    meaning:
      "A deviation entry's signature does not verify with the operator_public_key the frozen trust policy pins: its text or fields were edited after signing, or another key signed it. At audit, INVALID.",
    next: 'Restore the entry as `prereg deviation` wrote it; record a correction as a new deviation.',
  },
  DEVIATION_TOKEN_INVALID: {
    exit: EXIT.failures,
    meaning:
      "A deviation entry's RFC 3161 token does not verify over the entry digest against the TSA roots (the study's, and the auditor's --tsa-root): the time it was recorded is not witnessed.",
    next: "Check the TSA roots given; `prereg deviation` obtains tokens only from the study's TSAs (or --tsa) and keeps one that verifies.",
  },
  DEVIATION_BEFORE_FREEZE: {
    exit: EXIT.failures,
    meaning:
      "A deviation's TSA date is before the freeze's earliest anchor: a deviation departs from a frozen plan, so it cannot predate the freeze. `prereg deviation` refuses such a token (nothing written); at audit, INVALID.",
    next: 'Check the TSA clock; a change made before the freeze is an amendment (a new freeze), not a deviation.',
  },
  DEVIATION_FREEZE_MISMATCH: {
    exit: EXIT.failures,
    meaning:
      "A deviation entry names another study_id or freeze_digest than the study's freeze.json: it was recorded under another plan (or the study was re-frozen after it).",
    next: 'Restore the freeze the entries name; a study is not re-frozen after its window opened.',
  },
  DEVIATION_INTAKE_MISMATCH: {
    exit: EXIT.failures,
    meaning:
      "The intake position a deviation entry names (how many intake entries, and the last one's digest) is not a position of inputs/intake.jsonl, or is earlier than the previous deviation's: the intake log or the deviations log was rewritten.",
    next: 'Restore both logs as the commands wrote them (the message names the entry).',
  },
  DEVIATION_LOG_CHANGED: {
    exit: EXIT.failures,
    meaning:
      'inputs/deviations.jsonl is not the log whose SHA-256 the manifest recorded (inputs.deviations_sha256): a deviation was removed, edited or added after the outputs were emitted. At audit, INVALID.',
    next: 'Restore the log the outputs were emitted from; a new deviation means a new run (its own run_id), never an edited log.',
  },
  // --- end Deviations ------------------------------------------------------------------------
  // --- Outputs (SPEC §7) — pipeline/emit/, pipeline/stages/emit.ts ----------------------------
  REPORT_METRIC_UNKNOWN: {
    meaning:
      "study.json's report.primary_metric names a metric that section 5's scores do not produce, so the report could not lead with it.",
    next: 'Name in report.primary_metric a metric of result_scores (the `metric` column), or remove report from study.json before the freeze.',
  },
  OUTPUT_EXISTS: {
    exit: EXIT.conflict,
    meaning: 'outputs/<run_id>/ already exists: the same inputs were already emitted, and an output directory is never overwritten.',
    next: 'Keep the existing directory (same inputs give the same bytes), or move it away deliberately and emit again.',
  },
  PRIVATE_DIR_INSIDE_STUDY: {
    exit: EXIT.conflict,
    meaning:
      '`prereg init --private-dir` names a directory inside the study directory, judged on real paths (a symlink to the study counts as the study): the operator keys and the answer key would be published with the study. Nothing was written.',
    next: 'Pass a --private-dir outside the study directory, through no symlink into it (the default DIR.private beside DIR is).',
  },
  PREREG_SOURCE_INVALID: {
    exit: EXIT.usage,
    meaning:
      "`prereg init --prereg-source` names neither a prereg package tarball on disk (as `npm pack` writes it: a .tgz whose package.json names prereg) nor an https URL of one; a bare name would have the study's CI install whatever a registry serves under it. Nothing was written.",
    next: "Pass the prereg tarball you installed prereg from (init copies it into the study's tools/), or the https URL of a release tarball; see docs/ci.md.",
  },
  OUTPUT_PATH_UNSAFE: {
    exit: EXIT.conflict,
    meaning:
      'The outputs directory lies inside corpus/, preregistration/ or inputs/, judged on real paths (symlinks resolved, the nearest existing ancestor of a path not yet created): writing there would change what was frozen or submitted. Nothing was written.',
    next: 'Pass an --outputs directory outside corpus/, preregistration/ and inputs/ (the default outputs/ is).',
  },
  OUTPUT_PATH_INVALID: {
    exit: EXIT.conflict,
    meaning:
      'The outputs directory (or a path in it) is not a directory that can be written into: a file, a dangling symlink, a symlink loop.',
    next: 'Point --outputs at a directory (or a path that can be created as one); nothing was published.',
  },
  OUTPUT_NOT_WRITABLE: {
    meaning:
      "The outputs directory (or the store's work/) cannot be written: permission denied or a read-only file system. Nothing was published or replaced.",
    next: 'Make the directory writable (or choose another --outputs) and rerun; the run is reproducible, so nothing is lost.',
  },
  OUTPUT_DISK_FULL: {
    meaning:
      "The device holding the outputs (or the store's work/) ran out of space or quota while writing: the environment's, not a bug. The partial directory or database was removed (a stage writing the store in place — verify, classify, score — removes the store, a cache the next run rebuilds), and nothing was published or replaced.",
    next: 'Free space on that device (or choose another --outputs) and rerun.',
  },
  STORE_MEMORY_LIMIT: {
    meaning:
      "DuckDB needed more memory than a stage's store may use ($PREREG_DUCKDB_MEMORY_LIMIT, else 256MB) for a step it cannot spill to disk (lists built over every record that shares a piece of evidence, when very many do): the machine's limit, not a bug. Nothing was recorded for the stage; the store is a cache the next run rebuilds or completes.",
    next: 'Rerun the stage with a larger PREREG_DUCKDB_MEMORY_LIMIT in the environment (e.g. PREREG_DUCKDB_MEMORY_LIMIT=2GB, within what the machine has): the outputs do not depend on it.',
  },
  OUTPUT_STORE_INCOMPLETE: {
    meaning:
      'The DuckDB store lacks a table or column that emit reads (or it is a view, not a table): the stages before emit did not all complete.',
    next: 'Run the pipeline up to score (`prereg run`, or ingest, verify, classify, score), then emit again.',
  },
  OPERATOR_KEY_MISSING: {
    meaning: 'No operator signing key was given (the Ed25519 key for manifest.sig, or the CMS key and certificate for manifest.p7s).',
    next: 'Pass --operator-key FILE, --cms-key FILE and --cms-cert FILE, or set $PREREG_OPERATOR_KEY, $PREREG_OPERATOR_CMS_KEY and $PREREG_OPERATOR_CMS_CERT; never commit a real key.',
  },
  OPERATOR_KEY_INVALID: {
    meaning: 'The operator key is not a PEM Ed25519 private key.',
    next: 'Give the PEM (PKCS#8) Ed25519 private key whose public half is pinned in preregistration/trust/.',
  },
  OPERATOR_KEY_UNPINNED: {
    meaning:
      'The trust policy pins no operator_public_key (or the file it names is not an Ed25519 public key), so nobody could check the manifest signature.',
    next: 'Pin the operator public key in preregistration/trust/ before the freeze.',
  },
  OPERATOR_KEY_MISMATCH: {
    meaning:
      "The operator key's public half differs from the operator_public_key pinned in preregistration/trust/: the outputs would carry a signature nobody can check. In an audit: the study pins another operator key than the one the auditor passed with --operator-key.",
    next: 'Sign with the operator key that was pinned before the freeze.',
  },
  OPERATOR_CMS_INVALID: {
    meaning:
      'The CMS signing key or certificate is unusable: not an RSA key, not a PEM certificate, the certificate does not carry that key, or it was not issued by the pinned operator key.',
    next: 'Give the RSA CMS key and its certificate issued by the operator key (see docs/outputs.md and scripts/make-test-operator-cms.sh).',
  },
  // --- end Outputs ---------------------------------------------------------------------------
  // --- verify (SPEC §5.2, §6, §9) ------------------------------------------------------------------
  NOTHING_TO_VERIFY: {
    meaning: '`prereg verify` was given paths that hold no *.json or *.jsonl file: nothing was verified, which is not a success.',
    next: 'Give the proof, evidence, timeline or receipt files (*.json), submission files (*.jsonl), or the directory holding them.',
  },
  VERIFY_FILE_UNREADABLE: {
    meaning:
      'A file given to `prereg verify` cannot be read as JSON text (a proof, an evidence item, an AER-1 timeline or a single AER-1 receipt).',
    next: 'Give JSON files holding one proof, one evidence item ({proof, request?, response?}), one AER-1 timeline (a JSON array, or {"format":"aer-1", "revision", "entries"}) or one receipt.',
  },
  VERIFY_FILE_TOO_LARGE: {
    meaning:
      'A file given to `prereg verify FILE` is larger than 2 MiB, the limit on one file it reads (a proof, a receipt or a timeline is a few KiB; a file is parsed whole, and a large one could exhaust memory). It was checked before a byte was read, and not read; the other files given are still verified.',
    next: 'Check the file is the evidence it should be. Split a larger submission file into files of fewer lines (e.g. `split -l 200 sys-a.jsonl part- --additional-suffix=.jsonl`, then `prereg verify part-*.jsonl`): each line is verified on its own, so only the file names and line numbers of the results change.',
  },
  // --- verify shards (docs/scaling.md) — pipeline/verify/shard-*.ts ---------------------------------
  SHARD_MANIFEST_INVALID: {
    meaning:
      'A directory given to `prereg run --verified-shards` holds a shard whose shard.json is missing, is not JSON or does not match schemas/verify-shard.schema.json: nothing says what the shard was made from. Nothing was run.',
    next: 'Give the directories `prereg verify --shard I/N --out DIR` wrote, unchanged, one per shard; rerun the shard that is damaged.',
  },
  SHARD_FOREIGN: {
    meaning:
      "A verify shard was made from other inputs than the study has now (another freeze_digest, seal, submission or commitments file), by another prereg or DuckDB, for another number of shards, or holds rows of records the study does not have: its rows are not this study's checks. Nothing was run.",
    next: 'Rerun that shard (`prereg verify --shard I/N --out DIR`) on the study as it is now, with the same N and the same prereg as the others.',
  },
  SHARD_MISSING: {
    meaning:
      "The verify shards given to `prereg run --verified-shards` do not cover every evidence item and timeline: an index from 0 to N-1 has no shard, or a record's rows are in none. Leaving items out would drop their evidence from the scores. Nothing was run.",
    next: "Run the missing shard (`prereg verify --shard I/N --out DIR`, the message names I) and give every shard's directory.",
  },
  SHARD_DUPLICATE: {
    meaning:
      'Two verify shards given to `prereg run --verified-shards` have the same index, or an evidence item or timeline has rows in more than one: each must be checked exactly once. Nothing was run.',
    next: "Give each shard's directory once (remove the copy the message names).",
  },
  SHARD_DIGEST_MISMATCH: {
    meaning:
      'A Parquet file of a verify shard is not the file its shard.json records (another SHA-256): its rows were changed or replaced after the shard was written. Nothing was run.',
    next: "Rerun that shard (`prereg verify --shard I/N --out DIR`); never edit a shard's files.",
  },
  // --- evidence ownership (SPEC §6.2) — pipeline/store/evidence-ownership.sql -------------------
  EVIDENCE_NOT_BOUND: {
    meaning:
      "The study registers its systems (study.json `systems`) and this proof's buyer fingerprint — from its preimage, or an opened 3.x commitment — is not one of the submitting system's (another system's, none registered for it, or not published: a redacted or unopened fingerprint cannot bind). The proof keeps its own status; the record does not get it in the proven column.",
    next: "A proof certifies one buyer's call: submit proofs of your own calls, issued to a buyer key whose fingerprint the study registered for your system before the freeze (for 3.x, open buyer_fingerprint in the evidence item's disclosure).",
  },
  SELLER_INCONSISTENT: {
    meaning:
      'The same request (same request_hash, same item) to a pinned seller was served different sets of passages (by reference and text) — to two systems, or to two attempts of one — in VERIFIED proofs bound to the submitting system: those answers were not served alike. Listed in results.json (evidence.seller_inconsistencies) and the report; nothing is recomputed. Requests are told apart by their hash, so the check cannot show that systems sending different requests were served alike.',
    next: 'Read the listed passages: a service that varies its answers (an index rebuilt, a cache, a random sample) makes the comparison of the systems it served unequal; say so beside any comparison of them, and ask the seller why.',
  },
  EVIDENCE_REUSED: {
    meaning:
      "The same evidence — a proof (by proof_id or chain hash), a response hash, or a receipt timeline (by job_id or final entry digest) — is claimed by more than one record (other systems, items or attempts). It counts as proven for none of them; the report and results.json list every reuse. In a study that registers no systems a copier can cancel the original's credit this way.",
    next: 'Submit one proof per call and one timeline per job: a call serves one record. A study should register its systems (study.json `systems`) so that a copy is EVIDENCE_NOT_BOUND for the copier and leaves the original its credit.',
  },
  // --- served passages (SPEC §12.4) — pipeline/store/served-passages.sql, verify/passage-corpus.ts -
  EVIDENCE_SELLER_UNBOUND: {
    meaning:
      "The proof binds no seller: below 3.0 its chain hash does not recompute from a preimage that names one (a redacted public view, a mismatch), and for 3.x no opening of the `seller` commitment is given (a served `seller` field is the issuer's word, bound by nothing). The proof keeps its own status; its passages are not proven served (the declared column is unaffected).",
    next: "For 3.x, open `seller` in the evidence item's disclosure (`disclosure.disclosed.seller` with its nonce and value); below 3.0, submit your own copy of the proof (with parties and the transaction id), not its public view.",
  },
  EVIDENCE_SELLER_UNPINNED: {
    meaning:
      "The seller the proof binds is not one of the trust policy's `sellers`: a proof from a service the study did not pin proves nothing served. The proof keeps its own status; its passages are not proven served (the declared column is unaffected).",
    next: "Retrieve from the study's pinned retrieval service (preregistration/trust/policy.json `sellers`); the pinned list is frozen and cannot change after the freeze.",
  },
  PASSAGE_NOT_IN_CORPUS: {
    meaning:
      'A served passage is not frozen corpus text: normalised (Unicode NFC, white space folded, nothing else) it is empty, is an excerpt shorter than study.json `passages.min_chars` (default 80) and not the whole section, or does not occur in the section its `ref` names (from the heading that declares the identifier to the next heading that declares any). It is not proven served, whatever its proof; the declared column still counts it.',
    next: 'The retrieval service must serve the frozen corpus verbatim: the whole section of the ref, or an excerpt of at least passages.min_chars characters, under the ref of the section it is taken from.',
  },
  // --- classify and score: section 5 (SPEC §4.2, §6.3) ---------------------------------------------
  SECTION5_SQL_FAILED: {
    meaning:
      'A fenced sql block of section 5 failed to run (the message names its line); external access is disabled and the configuration locked while it runs.',
    next: 'Section 5 is frozen: fixing it means a new freeze before the study opens, or a declared deviation.',
  },
  SECTION5_OUT_OF_MEMORY: {
    meaning:
      "Section 5's SQL needed more memory than its locked DuckDB instance may take ($PREREG_SECTION5_MEMORY_LIMIT, else 1536MB): DuckDB spills sorts, aggregates and joins to work/ beyond the limit, but a query can pin more than the limit holds (e.g. many joins in one UNION). Nothing was written.",
    next: 'Rerun with a larger PREREG_SECTION5_MEMORY_LIMIT in the environment (default 1536MB; e.g. PREREG_SECTION5_MEMORY_LIMIT=4GB, within what the machine has): what section 5 computes does not depend on it.',
  },
  SECTION5_VIEW_MISSING: {
    meaning:
      'Section 5 ran but did not create a view the contract requires (assertion_classes, scores, constancy, sign_tests, hypotheses).',
    next: 'Nothing was written. The view must be created by the pre-registered SQL (docs/tables.md lists them).',
  },
  SECTION5_VIEW_COLUMNS: {
    meaning: 'A required view lacks one of its documented columns.',
    next: 'Nothing was written. See docs/tables.md for the columns each view must have.',
  },
  SECTION5_VALUE_INVALID: {
    meaning:
      "A required view holds a value outside its documented set (an unknown class or outcome), or section 5 could: freeze refuses a quoted literal that can reach a class column and is not a class of the study (the built-in set and study.json classes), and any undeclared or empty class its dry run on the product's fixture of every combination of base-table flags yields.",
    next: "Nothing was written (at freeze, nothing to anchor). An unknown value is never read as a favourable one: declare a class of the study's own in study.json classes with its meaning, or write a declared one; see docs/tables.md and docs/preregistration.md.",
  },
  HYPOTHESIS_DECISION_INVALID: {
    meaning:
      "Section 5's hypotheses view holds an outcome that Holm's procedure at study.json statistics.alpha does not give (SPEC §13.2): SUPPORTED needs p_holm ≤ alpha, NOT_SUPPORTED p_holm_against ≤ alpha, INCONCLUSIVE neither; p_holm and p_holm_against must be Holm's adjustments of p_value and p_value_against across every row of the view, each a probability (an undecidable hypothesis keeps p = 1).",
    next: 'Nothing was written. Decide each hypothesis with prereg_binomial_at_least / prereg_binomial_at_most and prereg_holm over the whole family (docs/tables.md, "Functions section 5 may call"), as the example\'s section 5 does.',
  },
  HYPOTHESIS_FAMILY_CHANGED: {
    meaning:
      "Section 5's hypotheses view produced, at score, other hypotheses than the family its dry run produced at the freeze (freeze.json hypothesis_family, SPEC §13.2): Holm's correction runs across the frozen family, so a plan whose hypotheses appear, vanish or multiply with the data (one per system, or filtered by their result) would correct across a family chosen after seeing it.",
    next: "Nothing was written; the study has no result from this plan. A plan must produce one row per declared hypothesis whatever the data (an undecidable one with p = 1, as the example's section 5 does); fix it and freeze again before the window opens.",
  },
  TRUNCATION_GAP: {
    meaning:
      "A caveat beside a comparison (results.json sign_test_adjustments.caveats, the report's sign tests): the two systems' shares of truncated answers, over their expected records, differ by more than study.json protocol.max_truncation_gap (default 0.10). Truncated answers already count as failures; the comparison stands, partly a comparison of how often each system was cut.",
    next: 'Nothing to do for the study; read the comparison with it. A participant whose answers are cut raises its token limit.',
  },
  SECTION5_RULE_UNUSED: {
    meaning:
      "Section 5 ignores a fact the product provides to protect the study from its participants (SPEC §13.1), by a static check of its SQL outside comments and string literals: it never reads expected_records (its rates would be over the records submitted, so a system leaving out what it gets wrong would gain), never reads record_refusals, or reads the submission's `refused` flag (a refusal would be what the system says, not what its answer is).",
    next: "Nothing was frozen. Compute every rate over expected_records and judge refusals by record_refusals.declared / .proven (the example's section 5 does both; docs/preregistration.md).",
  },
  SECTION5_BUILTIN_REDEFINED: {
    meaning:
      'Section 5 creates a macro named like one of DuckDB\'s built-in functions (e.g. bool_or, list_contains). Its macros stay in the store, where prereg\'s own SQL runs after it (the flips over attempts, SPEC §13.2): a built-in redefined there would change what prereg computes — bool_or made true would call every retrieval flip "writing".',
    next: 'Nothing was frozen (at score, nothing written). Name the macro otherwise; section 5 may define any function whose name DuckDB does not already use.',
  },
  // --- Audit (SPEC §8) — pipeline/audit/, pipeline/stages/audit.ts ------------------------------
  AUDIT_INCOMPLETE: {
    meaning: 'The audited directory has no manifest.json: the emit that wrote it never completed, so it is not a result.',
    next: 'Audit a complete outputs/<run_id>/ directory; rerun `prereg run` if the run was interrupted.',
  },
  AUDIT_SCHEMA_INVALID: {
    meaning:
      "manifest.json is not canonical or lacks a field, results.json does not parse, or SHA256SUMS or a file's size or SHA-256 differs from what the manifest lists (the file is named).",
    next: 'The directory was altered after emit or damaged in transfer; obtain the published copy again and compare the named file.',
  },
  AUDIT_SIGNATURE_INVALID: {
    meaning:
      "manifest.sig or manifest.p7s does not verify over manifest.json with the operator key pinned in the study's trust policy (or the CMS signer certificate was not issued by it).",
    next: 'Do not trust this manifest: either it or its signature was altered, or it was signed by another key than the pinned one.',
  },
  AUDIT_INPUT_CHANGED: {
    meaning:
      "An input digest the manifest recorded (corpus, section 5, answer key, trust policy, freeze, a submission, commitments, an anchor) differs from what the study's files give now; the file is named.",
    next: 'Audit against the inputs the run used; a changed input means these outputs are not the outputs of these inputs.',
  },
  AUDIT_ANCHORS_INVALID: {
    meaning:
      '`prereg check-anchors` fails on the study: a frozen digest no longer recomputes from the files, or an anchor token does not verify.',
    next: 'Run `prereg check-anchors` on the study for the drifted file or field; the pre-registration no longer holds as anchored.',
  },
  AUDIT_NOT_REPRODUCED: {
    exit: EXIT.failures,
    meaning:
      "Rerunning the pipeline from the study's inputs did not give these files byte for byte (the first differing file and line or row are named), or the rerun refused (its code is listed).",
    next: 'Compare the named file and row with the rerun; check the tool and DuckDB versions recorded in the manifest.',
  },
  AUDIT_DIGEST_MISMATCH: {
    meaning: 'run_id, artifact_digest or decision_digest does not recompute from manifest.json and the rows of results.json.',
    next: 'The manifest or results.json was altered; obtain the published copy again.',
  },
  AUDIT_DECISIONS_DIFFER: {
    meaning:
      "The rerun's decision rows (assertion classes, scores, hypotheses) differ from those recorded in results.json; the first differing table and row are named.",
    next: 'The recorded decisions are not what the pre-registered analysis gives on these inputs: report it.',
  },
  AUDIT_INTAKE_INVALID: {
    exit: EXIT.failures,
    meaning:
      "The sealed intake does not hold: the log's chain, a request's signature, an entry's token, the seal, its anchors or an input file differ from what was received and sealed — a request is not the successor of the one before it of its system and kind (INTAKE_REQUEST_STALE) — or a participant's receipt is signed by the operator for an entry the seal left out (INTAKE_RECEIPT_NOT_SEALED), or a participant's request dated before closes_at is not in the sealed log (INTAKE_REQUEST_WITHHELD).",
    next: 'Read the codes the rail lists (docs/intake.md): a file changed after the seal, an entry dropped before it, or a seal made outside its window each mean the inputs are not the ones received.',
  },
  SEAL_SELF_TRUSTED: {
    exit: EXIT.failures,
    meaning:
      "The seal's anchors verify only under TSA roots the study itself pins, none under a root the auditor supplied: the study vouches for the time its own intake closed.",
    next: "Obtain the seal TSA's root out of band and pass it with --tsa-root, or treat the seal as undated.",
  },
  AUDIT_TRUST_UNCONFIRMED: {
    exit: EXIT.failures,
    meaning:
      "A result rests on trust the study supplies for itself and the auditor did not: a freeze anchor verified only under the study's own TSA roots, a proof counted as verified under an issuer key or TSA root the auditor did not pass, or a freeze digest nothing independent pins. The study cannot vouch for itself.",
    next: "Obtain the roots, the issuer's key history and the published freeze digest out of band and pass them (--tsa-root, --issuer-keys, --expect-freeze); the rail names each entry and the flag that would confirm it.",
  },
  AUDIT_STUDY_UNREADABLE: {
    meaning: "The study's inputs (corpus/, preregistration/, inputs/ under --root) are missing or cannot be read, so nothing can be rerun.",
    next: 'Run the audit from the study root, or pass --root DIR pointing at the published study.',
  },
  // --- end Audit -----------------------------------------------------------------------------
  // --- Transparency log (SPEC §6.1) — pipeline/evidence/tlog/rekor-entry.ts: a Rekor hashedrekord entry carried
  // with the evidence, verified offline; every PROOF_TLOG_* code means UNTRUSTED -------------------
  PROOF_TLOG_MALFORMED: {
    meaning:
      "The transparency-log entry carried with the evidence does not follow schemas/tlog-entry.schema.json (Rekor's entry as retrieved: body, integratedTime, logID, logIndex, verification {signedEntryTimestamp, inclusionProof}); none of its checks ran.",
    next: 'Carry the entry exactly as the log served it (GET /api/v1/log/entries/{uuid}, the value under the uuid), with its inclusion proof and checkpoint.',
  },
  PROOF_TLOG_KIND: {
    meaning:
      "The log entry's body is not a hashedrekord v0.0.1 entry (another kind, not JSON, or a field missing), so it does not log a signed artifact hash.",
    next: 'Carry the hashedrekord entry the issuer created for this proof (its transparency_log.uuid), not another entry.',
  },
  PROOF_TLOG_ARTIFACT: {
    meaning:
      "The log entry logs another artifact: its spec.data.hash is not SHA-256 of the witnessed hash's hex string (the chain hash, or the batch root when batch-anchored).",
    next: "Carry the entry of this proof's chain hash (or of its batch root); an entry for another hash witnesses nothing about this proof.",
  },
  PROOF_TLOG_ENTRY_SIGNATURE: {
    meaning:
      "The log entry's signature (spec.signature.content) does not verify with the submitter key it carries over the witnessed hash's hex string, or that key does not parse.",
    next: 'The entry was altered or is not the one the log accepted; fetch it again from the log.',
  },
  PROOF_TLOG_SUBMITTER_UNPINNED: {
    meaning:
      "The log entry verifies, but the key that signed it is not one of the issuer's log-signing keys pinned in preregistration/trust/ (tlog_submitter_keys), or that key's window [valid_from, valid_until) does not hold the entry's integrated time: the entry does not attribute the hash to the issuer.",
    next: "Pin the issuer's log-signing keys before the freeze (for ArkForge, its rekor keys: `prereg trust import-arkforge published_keys.json`, docs/trust.md); the issuer's proof keys (arkforge_keys) do not count for log entries.",
  },
  PROOF_TLOG_SET: {
    meaning:
      'The signed entry timestamp does not verify with the pinned log key over the canonical JSON {body, integratedTime, logID, logIndex}: one of them was changed after the log signed it.',
    next: "Fetch the entry again from the log; a changed integrated time or index is not the log's word.",
  },
  PROOF_TLOG_INCLUSION: {
    meaning:
      "The inclusion proof does not reach its root from the entry's leaf (SHA-256(0x00 ‖ body)): the audit path does not have exactly the length RFC 6962 fixes for its index and tree size, the index is outside the tree, or the walk ends at another root.",
    next: 'Fetch the entry with a fresh inclusion proof; a proof for another tree size or a cut path shows no inclusion.',
  },
  PROOF_TLOG_CHECKPOINT: {
    meaning:
      "The checkpoint does not vouch for the inclusion proof: it is not a signed note, its tree size or root differs from the proof's, or it carries no signature by the pinned log key that verifies.",
    next: 'Carry the checkpoint the log served with the inclusion proof; a checkpoint of another tree or by another key proves nothing.',
  },
  PROOF_TLOG_KEY_UNPINNED: {
    meaning:
      "The entry's log id names no log key pinned in preregistration/trust/ (tlog_keys), or the pinned key's window [valid_from, valid_until) does not contain the entry's integrated time.",
    next: "Pin the log's public key (log_id = hex SHA-256 of its DER SPKI) before the freeze if the log is meant to be trusted; otherwise the entry is not a witness.",
  },
  // --- end Transparency log --------------------------------------------------------------------
  // --- ArkForge proofs 3.x and batch anchors (SPEC §6.1) — pipeline/evidence/arkforge/
  // versions/commitments.ts, pipeline/evidence/arkforge/batch-anchor.ts; statuses per the SPEC table --------------
  PROOF_COMMITMENT_ROOT_MISMATCH: {
    meaning:
      "A spec 3.x proof's hashes.chain is not the RFC 6962 root of its commitments (taken in sorted field order): a commitment or the chain hash was changed after issue. TAMPERED.",
    next: 'Submit the proof exactly as issued; nothing can repair a changed proof.',
  },
  PROOF_COMMITMENT_SET_MISMATCH: {
    meaning:
      'The committed fields of a spec 3.x proof are not exactly the six base fields, plus upstream_timestamp / receipt_content_hash when served, plus (3.1) the identity block: a field is served but not committed, or committed but not part of the set. TAMPERED.',
    next: 'The problems name the fields; a proof whose commitments do not cover what it serves is not evidence for those fields. Obtain the proof again from the issuer.',
  },
  PROOF_DISCLOSURE_MISMATCH: {
    meaning:
      "An opening {nonce, value} — in the proof's disclosed or in the evidence item's disclosure — does not open its commitment: SHA-256(field ‖ 0x00 ‖ nonce ‖ canonical value) differs, or the proof commits no such field (a proof before 3.0 commits none). TAMPERED.",
    next: 'Give the openings exactly as the issuer handed them over (nonce as 64 hex digits, the value as committed); an edited value or nonce is not evidence.',
  },
  PROOF_SERVED_VALUE_MISMATCH: {
    meaning:
      'An opening opens its commitment, but the proof serves another value for that field (compared as canonical JSON): the served field was changed after anchoring. TAMPERED.',
    next: 'The opened value is the anchored one; the served value is not. Obtain the proof again from the issuer.',
  },
  PROOF_BODY_UNBOUND: {
    meaning:
      'With spec 3.x a request or response body is bound to the chain hash only through an opened request_hash / response_hash; this body has no opening that opens to its hash, so nothing anchored covers it. UNTRUSTED.',
    next: 'Add the owner\'s opening to the evidence item: "disclosure": {"disclosed": {"response_hash": {"nonce": …, "value": …}}} (and request_hash for the request body).',
  },
  PROOF_IDENTITY_INCOMPLETE: {
    meaning:
      "A spec 3.1 proof lacks its identity block: agent_identity, agent_identity_verified, did_resolution_status or identity_consistent is not committed, or committed but not opened in the proof's disclosed. MALFORMED.",
    next: 'Submit the proof as the issuer served it, with its disclosed block; a 3.1 proof without it is not a conforming proof.',
  },
  PROOF_IDENTITY_INVALID: {
    meaning:
      'An opened identity value of a spec 3.1 proof is outside its domain: agent_identity a string or null, agent_identity_verified true or null (never false), did_resolution_status "bound", "unverified" or null, identity_consistent true, false or null. MALFORMED.',
    next: 'Report the proof to its issuer; it is not a conforming 3.1 proof.',
  },
  PROOF_IDENTITY_UNANCHORED: {
    meaning:
      "The proof serves an agent identity, but its spec_version (below 3.1) commits none: the identity is the issuer's unanchored statement, reported and never counted as verified. Informational: the status is unaffected.",
    next: 'Nothing to fix. An identity that must count needs a spec 3.1 proof, whose identity block is committed and opened.',
  },
  PROOF_BATCH_INDEX_OUT_OF_RANGE: {
    meaning: 'batch_anchor.leaf_index is not in [0, tree_size): the chain hash cannot be a leaf of the batch tree it names. TAMPERED.',
    next: 'Submit the proof with the batch anchor exactly as issued.',
  },
  PROOF_BATCH_PATH_LENGTH: {
    meaning:
      'batch_anchor.audit_path does not have exactly the number of nodes RFC 6962 fixes for leaf_index in a tree of tree_size leaves (one too many, one too few, or an overstated tree_size). TAMPERED.',
    next: 'Submit the proof with the batch anchor exactly as issued; a path for another tree shape proves no inclusion.',
  },
  PROOF_BATCH_PATH_INVALID: {
    meaning:
      'The audit path walked from SHA-256(0x00 ‖ chain-hash bytes) at leaf_index does not reach batch_anchor.root: the batch root the external witnesses attest does not cover this chain hash. TAMPERED.',
    next: 'Submit the proof with the batch anchor exactly as issued; nothing can repair a broken inclusion proof.',
  },
  PROOF_BATCH_PENDING: {
    meaning:
      "batch_anchor.status is pending: the proof's batch had not closed when it was retrieved, so no external anchor covers it yet — waiting, not tampered. UNTRUSTED when the trust policy requires a token, informational otherwise.",
    next: 'Retrieve the proof again after its batch closed (within minutes of issue): it then carries the anchored batch anchor and its token.',
  },
  // --- end ArkForge proofs 3.x and batch anchors -----------------------------------------------
  // --- the rehearsal's TEST-ONLY dev tools (docs/getting-started.md) ----------------------------
  DEV_KIT_INVALID: {
    meaning:
      'The directory given as --kit is not a rehearsal kit: a file of it is missing, or its TEST-ONLY-dev-kit.json is not a prereg.dev-kit/1 manifest.',
    next: 'Pass the kit `prereg init --rehearsal` wrote (PRIVATE_DIR/TEST-ONLY-dev-kit/), or run init --rehearsal again into a new directory.',
  },
  DEV_ISSUE_INVALID: {
    meaning:
      '`prereg dev issue` was asked for something the frozen study does not have: an item not in corpus/items.jsonl, a ref no heading of the frozen corpus declares (a dev proof serves only frozen corpus text, verbatim), or a system the kit has no buyer for.',
    next: 'Name an item of corpus/items.jsonl, refs of the frozen vocabulary and a system the rehearsal registered (the message lists them).',
  },
  DEV_SYSTEM_AFTER_FREEZE: {
    exit: EXIT.conflict,
    meaning:
      '`prereg dev add-system` was run on a study that is already frozen: study.json is part of the frozen plan, so a system added now would be drift (the freeze digest no longer describes the study); nothing was written.',
    next: 'Add systems before `prereg freeze`; after it, a rehearsal of another size starts again from `prereg init --rehearsal --rehearsal-systems N`.',
  },
  DEV_SYSTEM_EXISTS: {
    exit: EXIT.conflict,
    meaning:
      '`prereg dev add-system` was given a system id that study.json already registers or the kit already holds (a buyer or an agent key file): a second registration would overwrite or share its keys; nothing was written.',
    next: 'Pick a new system id (`prereg dev add-system sys-d …`).',
  },
  DEV_KIT_NOT_PINNED: {
    meaning:
      "`prereg dev add-system` was given a kit whose dev issuer key the study's trust policy does not pin: the kit is another rehearsal's, or the study is not a rehearsal, and a system added with it could never prove a passage; nothing was written.",
    next: 'Pass the kit `prereg init --rehearsal` wrote for this study (PRIVATE_DIR/TEST-ONLY-dev-kit/); a real study registers its systems by hand (docs/intake.md).',
  },
} as const satisfies Record<string, ReasonEntry>;

export type ReasonCode = keyof typeof REASONS;

export function isReasonCode(code: string): code is ReasonCode {
  return Object.hasOwn(REASONS, code);
}

/** The exit code the catalogue gives a code (SPEC §10). */
export function exitCodeOf(code: ReasonCode): ExitCode {
  const entry: ReasonEntry = REASONS[code];
  return entry.exit ?? EXIT.blocked;
}

/**
 * An error the user can cause: it carries a stable code; its exit code is the catalogue's, which
 * cli.ts applies. Only a stage may say otherwise (`exitCode`), where one code stops a command in
 * two ways (a file named on the command line that does not exist is a usage error).
 */
export class PreregError extends Error {
  readonly exitCode: ExitCode;

  constructor(
    readonly code: ReasonCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    exitCode: ExitCode = exitCodeOf(code),
  ) {
    super(message);
    this.name = 'PreregError';
    this.exitCode = exitCode;
  }
}
