#!/usr/bin/env bash
# npm run smoke:package (run by .ci/run): the package as a user gets it. `npm pack`, install the
# tarball into a fresh project whose path contains a space (from the npm cache when it can), then
# there: `npx prereg --help`; installed globally, `prereg docs` (every path it prints exists, every
# doc --help, init and `next:` lines name is shipped) and participating.md's worked example; the
# install step of the CI workflow `init --prereg-source TARBALL` writes, run as written;
# `prereg trust import-arkforge` and `prereg verify` on a vendored real
# proof (VERIFIED), alone and as 70 copies (enough to start the compiled worker threads); `prereg
# mcp` refused without its optional SDK (MCP_SDK_MISSING), then, with the SDK installed globally
# beside prereg, answering the SDK's own client (tools/list, explain as `--json` prints it); and a
# TypeScript program importing verifyEvidence, verifyTimeline, verifyReceipt, verifyTimestampToken
# and canonicalJson from 'prereg', compiled against the package's own declarations, then run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
real="$repo/test/fixtures/real/arkforge-production"
foreign="$repo/test/fixtures/real/rfc3161-foreign"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/a consumer project"
mkdir -p "$project" "$work/pack"

fail() { echo "smoke:package: $*" >&2; exit 1; }

(cd "$repo" && npm pack --silent --pack-destination "$work/pack" >/dev/null)
tarball="$(ls "$work"/pack/*.tgz)"
cd "$project"
cat > package.json <<'JSON'
{ "name": "consumer", "version": "1.0.0", "private": true, "type": "module" }
JSON
# Versions the project itself pins (package-lock.json), so the cache has them.
tsver="$(node -p "require('$repo/package-lock.json').packages['node_modules/typescript'].version")"
typesver="$(node -p "require('$repo/package-lock.json').packages['node_modules/@types/node'].version")"
npm install --prefer-offline --no-audit --no-fund --silent "$tarball" "typescript@$tsver" "@types/node@$typesver"

npx prereg --help | grep -q '^usage: prereg <command>' || fail 'npx prereg --help did not print the usage'
# The MCP server's SDK is an optional peer dependency: installing prereg did not bring it, and
# `prereg mcp` says so (exit 3) instead of failing on an import.
[ ! -e node_modules/@modelcontextprotocol/sdk ] || fail 'installing prereg installed the MCP SDK'
set +e; out="$(npx prereg mcp </dev/null 2>&1)"; code=$?; set -e
[ "$code" = 3 ] && grep -q '^prereg: MCP_SDK_MISSING: ' <<<"$out" || fail "prereg mcp without the SDK exited $code: $out"

# Installed globally (into a scratch prefix), `prereg` runs from any directory, and init finds the
# example plan and report block it scaffolds from inside the package.
prefix="$work/global prefix"
npm install --global --prefix "$prefix" --prefer-offline --no-audit --no-fund --silent "$tarball"
elsewhere="$work/elsewhere"
mkdir -p "$elsewhere"
(cd "$elsewhere" && PATH="$prefix/bin:$PATH" prereg --version | grep -q "^prereg $(node -p "require('$repo/package.json').version")$") || fail 'prereg --version from another directory, after npm i -g'
(cd "$elsewhere" && PATH="$prefix/bin:$PATH" prereg init new-study >/dev/null) || fail 'prereg init from the globally installed package'
grep -q '"primary_metric"' "$elsewhere/new-study/preregistration/study.json" || fail 'init wrote no report block'
node -e 'const p = require(process.argv[1]); if (p.private || (p.scripts && p.scripts.prepare)) process.exit(1)' "$prefix/lib/node_modules/prereg/package.json" || fail 'the installed package.json is private or keeps a prepare script'

# The installed package carries its docs: every path `prereg docs` prints exists inside the
# installed package, `prereg docs intake` resolves, every docs/*.md that --help, init or a `next:`
# line (explain --all) names is among them, and participating.md's worked example runs as written
# on the example files the package ships.
installed="$prefix/lib/node_modules/prereg"
listed="$(cd "$elsewhere" && PATH="$prefix/bin:$PATH" prereg docs --json)" || fail 'prereg docs from the globally installed package'
named="$(cd "$elsewhere" && { PATH="$prefix/bin:$PATH" prereg explain --all; PATH="$prefix/bin:$PATH" prereg --help; PATH="$prefix/bin:$PATH" prereg help init; PATH="$prefix/bin:$PATH" prereg init named-study; } | grep -o 'docs/[A-Za-z0-9_.-]*\.md' | sort -u)"
node -e '
  const fs = require("node:fs"), path = require("node:path");
  const [listed, installed, named] = process.argv.slice(1);
  const docs = JSON.parse(listed).docs;
  if (docs.length < 10) throw new Error(`prereg docs lists ${docs.length} docs`);
  for (const d of docs) if (!d.path.startsWith(path.join(installed, "docs") + path.sep) || !fs.statSync(d.path).isFile()) throw new Error(`prereg docs printed ${d.path}`);
  const missing = named.split("\n").filter(Boolean).filter((n) => !docs.some((d) => `docs/${d.name}.md` === n));
  if (missing.length > 0) throw new Error(`named but not shipped: ${missing.join(", ")}`);
' "$listed" "$installed" "$named" || fail 'prereg docs: a printed path is missing, or a named doc is not shipped'
intake="$(cd "$elsewhere" && PATH="$prefix/bin:$PATH" prereg docs intake)" || fail 'prereg docs intake'
[ "$intake" = "$installed/docs/intake.md" ] && [ -f "$intake" ] || fail "prereg docs intake printed $intake"
worked="$work/participant"
mkdir -p "$worked"
sed -n '/^<!-- recipe:worked-example -->$/,/^<!-- \/recipe -->$/p' "$installed/docs/participating.md" | sed '1,2d;$d' | sed '$d' > "$work/worked-example.sh"
out="$(cd "$worked" && PATH="$prefix/bin:$PATH" bash -euo pipefail "$work/worked-example.sh")" || fail "participating.md's worked example exited $?: $out"
grep -q 'proof_proveit_gel.json: proof VERIFIED$' <<<"$out" || fail "participating.md's worked example: $out"

# The study's CI (docs/ci.md), its install step for real: `init --prereg-source TARBALL` copies the
# tarball into the study, and the workflow's install step as written, with the PREREG_SOURCE line
# it holds, installs it (into a scratch prefix, from the npm cache when it can) and runs it.
(cd "$elsewhere" && PATH="$prefix/bin:$PATH" prereg init ci-study --prereg-source "$tarball" >/dev/null) || fail 'prereg init --prereg-source TARBALL'
workflow="$elsewhere/ci-study/.github/workflows/prereg.yml"
ci_source="$(sed -n 's/^  PREREG_SOURCE: //p' "$workflow")"
cmp -s "$tarball" "$elsewhere/ci-study/$ci_source" || fail "init did not copy the tarball to the workflow's PREREG_SOURCE ($ci_source)"
awk '/- name: install prereg from PREREG_SOURCE/ { on = 1; next } on && /^      - / { exit } on && !/^        run: [|]$/ { sub(/^          /, ""); print }' "$workflow" > "$work/install-step.sh"
ci_prefix="$work/ci prefix"
out="$(cd "$elsewhere/ci-study" && PREREG_SOURCE="$ci_source" npm_config_prefix="$ci_prefix" npm_config_prefer_offline=true PATH="$ci_prefix/bin:$PATH" bash --noprofile --norc -eo pipefail "$work/install-step.sh" 2>&1)" || fail "the workflow's install step exited $?: $out"
grep -q "^prereg $(node -p "require('$repo/package.json').version")$" <<<"$out" || fail "the workflow's install step did not run the prereg it installed: $out"
[ -x "$ci_prefix/bin/prereg" ] || fail "the workflow's install step installed no prereg into its prefix"
# With the SDK installed globally beside it (the version the project pins), `prereg mcp` serves:
# the SDK's client lists the tools and gets explain's JSON as the CLI prints it.
sdkver="$(node -p "require('$repo/package-lock.json').packages['node_modules/@modelcontextprotocol/sdk'].version")"
npm install --global --prefix "$prefix" --prefer-offline --no-audit --no-fund --silent "@modelcontextprotocol/sdk@$sdkver"
cat > "$work/mcp-client.mjs" <<'JS'
const sdk = `${process.argv[2]}/lib/node_modules/@modelcontextprotocol/sdk/dist/esm/client`;
const { Client } = await import(`${sdk}/index.js`);
const { StdioClientTransport } = await import(`${sdk}/stdio.js`);
const client = new Client({ name: 'smoke', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command: 'prereg', args: ['mcp', '--root', process.argv[3]], env: { PATH: process.env.PATH } }));
const { tools } = await client.listTools();
const r = await client.callTool({ name: 'explain', arguments: { codes: ['CORPUS_DRIFT'] } });
console.log(JSON.stringify({ tools: tools.map((t) => t.name), text: r.content[0].text }));
await client.close();
JS
got="$(PATH="$prefix/bin:$PATH" node "$work/mcp-client.mjs" "$prefix" "$elsewhere/new-study")" || fail "prereg mcp with the SDK: $got"
want="$(cd "$elsewhere" && PATH="$prefix/bin:$PATH" prereg explain CORPUS_DRIFT --json)"
node -e '
  const got = JSON.parse(process.argv[1]);
  if (got.tools.join(",") !== "explain,doctor,status,validate,verify,check-anchors") throw new Error(`tools: ${got.tools}`);
  if (got.text !== process.argv[2] + "\n") throw new Error(`explain: ${got.text}`);
' "$got" "$want" || fail "prereg mcp, installed globally with the SDK: $got"

# A trust directory pinning FreeTSA and the Rekor log, with ArkForge's published keys imported.
mkdir trust files
cp "$real/freetsa-cacert.pem" "$real/freetsa-tsa.crt" "$real/rekor-log.pub.pem" trust/
cat > trust/policy.json <<'JSON'
{
  "format": "prereg.trust/1",
  "arkforge_keys": [],
  "tsa_roots": ["freetsa-cacert.pem"],
  "tsa_certs": ["freetsa-tsa.crt"],
  "tlog_keys": [{ "log_id": "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d", "public_key_file": "rekor-log.pub.pem" }],
  "require_tsa_token": true,
  "max_skew_seconds": 300,
  "require_receipts": false
}
JSON
npx prereg trust import-arkforge "$real/published_keys.json" --trust trust >/dev/null
cp "$real/proof_proveit_gel.json" proof.json
out="$(npx prereg verify proof.json --trust trust --json)" || fail "prereg verify on the real proof exited $?: $out"
node -e 'const r = JSON.parse(process.argv[1]); if (r.status !== "VERIFIED") process.exit(1)' "$out" || fail "the real proof did not verify: $out"
for i in $(seq -w 1 70); do cp proof.json "files/proof-$i.json"; done
lines="$(npx prereg verify files --trust trust --json)" || fail "prereg verify on 70 copies exited $?"
[ "$(grep -c '"status":"VERIFIED"' <<<"$lines")" = 70 ] || fail "not every one of 70 copies verified: $lines"

cp "$repo/test/fixtures/package-smoke/consumer.ts" .
cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "types": ["node"], "outDir": "out" }, "files": ["consumer.ts"] }
JSON
npx tsc -p . || fail 'the TypeScript consumer did not compile against the package declarations'
got="$(node out/consumer.js proof.json trust "$foreign/response-sha256.tsr" "$foreign/stamped-data.bin" "$foreign/derived/sigstore-root.pem")"
[ "$got" = '{"file":"VERIFIED 0","proof":"VERIFIED","receipt":"NONCONFORMANT","timeline":"BROKEN","token":"VERIFIED"}' ] || fail "the consumer printed $got"
echo "smoke:package: ok ($(basename "$tarball") installed in \"$project\")"
