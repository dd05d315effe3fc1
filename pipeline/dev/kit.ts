// The rehearsal's TEST-ONLY kit (docs/getting-started.md): the material a rehearsal stands in for
// — a TSA's CA and signing certificate, an ArkForge issuer's key, the systems' buyer API keys and
// agent keys — generated at run time into one directory outside the study (init --rehearsal puts
// it in the private directory), every file named TEST-ONLY. A study trusts none of it unless its
// trust policy pins it (init --rehearsal does), and an audit only with --tsa-root and --issuer-keys
// naming the kit's root and key history: nothing here is ever trusted implicitly.
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentKeyText } from '../evidence/intake/ed25519.ts';
import { issueCertificate, OID_TIME_STAMPING, pem } from '../init/certificate.ts';
import { prepareFileAtomic, type PreparedFile } from '../io/atomic.ts';
import { readJsonFile } from '../io/json-files.ts';
import { agentKeyRegistration, type AgentKeyRegistration } from '../participant/agent-key.ts';
import { PreregError } from '../reasons.ts';
import { loadTsaSigner, type TsaSigner } from './tsa/pkijs-tsa.ts';

export const KIT_FORMAT = 'prereg.dev-kit/1';

/** The kit's files, relative to its directory. */
export const KIT_FILES = {
  readme: 'TEST-ONLY-README.txt',
  manifest: 'TEST-ONLY-dev-kit.json',
  /** The dev TSA's root certificate: what the study pins and the auditor passes as --tsa-root. */
  tsaRoot: 'TEST-ONLY-dev-tsa-root.cert.pem',
  tsaCert: 'TEST-ONLY-dev-tsa.cert.pem',
  tsaKey: 'TEST-ONLY-dev-tsa.key.pem',
  issuerKey: 'TEST-ONLY-dev-issuer.key.pem',
  /** The dev issuer's key history in ArkForge's published_keys.json format: the auditor's --issuer-keys. */
  issuerKeys: 'TEST-ONLY-dev-issuer.published_keys.json',
  agentKey: (systemId: string) => `TEST-ONLY-agent-${systemId}.key.pem`,
} as const;

export const DEV_ISSUER_KID = 'TEST-ONLY-dev-issuer';
/** The seller every dev proof binds, which the rehearsal's trust policy pins. */
export const DEV_SELLER = 'dev-retrieval.test-only.invalid';

const README = `TEST-ONLY rehearsal kit (prereg dev; docs/getting-started.md).

Every key here was generated on this machine for a rehearsal. Nothing here may stand behind a
real study: the TSA, the issuer and the buyers are stand-ins, and anyone holding this directory
can mint proofs and tokens that a study pinning them would accept. Delete it after the rehearsal.
`;

interface KitManifest {
  format: typeof KIT_FORMAT;
  test_only: true;
  seller: string;
  /** system_id → the buyer API key its dev proofs are bought with (the proof carries SHA-256 of it). */
  buyers: Record<string, string>;
}

export interface DevKit {
  dir: string;
  seller: string;
  buyers: Readonly<Record<string, string>>;
  tsaRootPem: string;
  issuerKey: KeyObject;
  issuerKeyPem: string;
  /** `ed25519:…` of the issuer key. */
  issuerPublicKey: string;
  path: (file: string) => string;
}

const writePrivate = (path: string, text: string) => {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
};

/** The buyer fingerprint of an API key: SHA-256 hex (what the issuer writes, what a study registers). */
export const devBuyerFingerprint = (apiKey: string) => createHash('sha256').update(apiKey, 'utf8').digest('hex');

/**
 * A TEST-ONLY TSA CA in `dir` (EC P-256 root, and a P-256 signing certificate issued by it with the
 * critical timeStamping extended key usage RFC 3161 §2.3 requires), unless the kit has one.
 */
export function ensureDevTsa(dir: string): void {
  if (existsSync(join(dir, KIT_FILES.tsaCert))) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const root = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const tsa = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rootName = 'TEST-ONLY prereg dev TSA root';
  const rootCert = issueCertificate({
    subject: rootName,
    issuer: rootName,
    subjectKey: root.publicKey,
    issuerKey: root.privateKey,
    ca: true,
  });
  const tsaCert = issueCertificate({
    subject: 'TEST-ONLY prereg dev TSA',
    issuer: rootName,
    subjectKey: tsa.publicKey,
    issuerKey: root.privateKey,
    ca: false,
    extendedKeyUsage: { purpose: OID_TIME_STAMPING, critical: true },
  });
  if (!existsSync(join(dir, KIT_FILES.readme))) writeFileSync(join(dir, KIT_FILES.readme), README);
  writeFileSync(join(dir, KIT_FILES.tsaRoot), pem('CERTIFICATE', rootCert));
  writeFileSync(join(dir, KIT_FILES.tsaCert), pem('CERTIFICATE', tsaCert));
  writePrivate(join(dir, KIT_FILES.tsaKey), tsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  // The root's private key is not kept: the kit's only signer is the TSA certificate.
}

/** The kit's TSA signer (the signing certificate travels in every token). */
export async function devTsaSigner(dir: string): Promise<TsaSigner> {
  requireKitFile(dir, KIT_FILES.tsaCert);
  return loadTsaSigner(readFileSync(join(dir, KIT_FILES.tsaCert), 'utf8'), readFileSync(join(dir, KIT_FILES.tsaKey), 'utf8'));
}

export interface NewKitOptions {
  studyId: string;
  systems: readonly string[];
  /** The issuer key's window start (published_keys.json valid_from); no end. */
  issuerValidFrom: string;
  seller?: string;
}

export interface NewKit {
  kit: DevKit;
  /** Per system: its buyer fingerprint and its agent key's registration. */
  systems: Array<{ system_id: string; buyer_fingerprint: string; agent_key: AgentKeyRegistration; agent_key_file: string }>;
}

/** Generates a whole kit in `dir` (new or empty): TSA CA, issuer key and its history, buyers, agent keys. */
export function createDevKit(dir: string, o: NewKitOptions): NewKit {
  ensureDevTsa(dir);
  const issuer = generateKeyPairSync('ed25519');
  writePrivate(join(dir, KIT_FILES.issuerKey), issuer.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  const history = {
    _doc: 'TEST-ONLY: the rehearsal dev issuer (prereg dev issue), in ArkForge published_keys.json format',
    keys: [
      { kid: DEV_ISSUER_KID, type: 'Ed25519', public: agentKeyText(issuer.publicKey), valid_from: o.issuerValidFrom, retired_at: null },
    ],
    rekor_keys: [],
  };
  writeFileSync(join(dir, KIT_FILES.issuerKeys), `${JSON.stringify(history, null, 2)}\n`);
  const buyers: Record<string, string> = {};
  const systems = o.systems.map((system_id) => {
    const made = newDevSystem(dir, o.studyId, system_id);
    buyers[system_id] = made.buyerKey;
    writePrivate(made.system.agent_key_file, made.agentKeyPem);
    return made.system;
  });
  writePrivate(
    join(dir, KIT_FILES.manifest),
    manifestText({ format: KIT_FORMAT, test_only: true, seller: o.seller ?? DEV_SELLER, buyers }),
  );
  return { kit: loadDevKit(dir), systems };
}

export type NewDevSystem = NewKit['systems'][number];

/** One rehearsal system's TEST-ONLY material, not yet written: its buyer API key, its agent key (PEM) and what study.json registers. */
function newDevSystem(dir: string, studyId: string, systemId: string): { buyerKey: string; agentKeyPem: string; system: NewDevSystem } {
  const buyerKey = `TEST-ONLY-dev-buyer-${systemId}-${randomBytes(8).toString('hex')}`;
  const agent = generateKeyPairSync('ed25519').privateKey;
  return {
    buyerKey,
    agentKeyPem: agent.export({ format: 'pem', type: 'pkcs8' }).toString(),
    system: {
      system_id: systemId,
      buyer_fingerprint: devBuyerFingerprint(buyerKey),
      agent_key: agentKeyRegistration(agent, studyId, systemId),
      agent_key_file: join(dir, KIT_FILES.agentKey(systemId)),
    },
  };
}

const manifestText = (manifest: KitManifest) => `${JSON.stringify(manifest, null, 2)}\n`;

/**
 * One more system for the kit (`prereg dev add-system`): its agent key file and the manifest with
 * its buyer, each prepared beside its place (mode 0600) for the caller to commit once everything
 * else it writes is prepared too: all or nothing. A system the kit already has is refused.
 */
export function prepareDevSystem(kit: DevKit, studyId: string, systemId: string): { system: NewDevSystem; files: PreparedFile[] } {
  const made = newDevSystem(kit.dir, studyId, systemId);
  if (Object.hasOwn(kit.buyers, systemId) || existsSync(made.system.agent_key_file)) {
    throw new PreregError(
      'DEV_SYSTEM_EXISTS',
      `the kit ${kit.dir} already has a system ${JSON.stringify(systemId)} (a buyer or ${KIT_FILES.agentKey(systemId)}); nothing was written`,
      { path: kit.dir, system_id: systemId },
    );
  }
  const manifest: KitManifest = {
    format: KIT_FORMAT,
    test_only: true,
    seller: kit.seller,
    buyers: { ...kit.buyers, [systemId]: made.buyerKey },
  };
  const files: PreparedFile[] = [];
  try {
    files.push(prepareFileAtomic(made.system.agent_key_file, made.agentKeyPem, 0o600));
    files.push(prepareFileAtomic(kit.path(KIT_FILES.manifest), manifestText(manifest), 0o600));
  } catch (err) {
    for (const f of files) f.discard();
    throw err;
  }
  return { system: made.system, files };
}

function requireKitFile(dir: string, file: string): void {
  if (!existsSync(join(dir, file)))
    throw new PreregError(
      'DEV_KIT_INVALID',
      `${join(dir, file)} does not exist: ${dir} is not a rehearsal kit (\`prereg init --rehearsal\` writes one)`,
      { path: join(dir, file) },
    );
}

export function loadDevKit(dir: string): DevKit {
  requireKitFile(dir, KIT_FILES.manifest);
  requireKitFile(dir, KIT_FILES.issuerKey);
  const manifest = readJsonFile(join(dir, KIT_FILES.manifest)) as Partial<KitManifest>;
  if (
    manifest.format !== KIT_FORMAT ||
    manifest.test_only !== true ||
    typeof manifest.seller !== 'string' ||
    typeof manifest.buyers !== 'object' ||
    manifest.buyers === null
  ) {
    throw new PreregError('DEV_KIT_INVALID', `${join(dir, KIT_FILES.manifest)} is not a ${KIT_FORMAT} manifest`, {
      path: join(dir, KIT_FILES.manifest),
    });
  }
  const issuerKeyPem = readFileSync(join(dir, KIT_FILES.issuerKey), 'utf8');
  const issuerKey = createPrivateKey(issuerKeyPem);
  return {
    dir,
    seller: manifest.seller,
    buyers: manifest.buyers,
    tsaRootPem: readFileSync(join(dir, KIT_FILES.tsaRoot), 'utf8'),
    issuerKey,
    issuerKeyPem,
    issuerPublicKey: agentKeyText(issuerKey),
    path: (file) => join(dir, file),
  };
}
