// The tests' local TSA over HTTP: the pipeline's TEST-ONLY server (pipeline/dev/tsa/http-tsa.ts)
// in front of the pkijs or the OpenSSL TSA, with the committed TEST-ONLY PKI as the default signer.
import {
  opensslBackend,
  pkijsBackend,
  serveTsa,
  type GenTimeSource,
  type HttpTsaOptions,
  type TsaServer,
} from '../../../pipeline/dev/tsa/http-tsa.ts';
import type { OpensslTsaOptions } from '../../../pipeline/dev/tsa/openssl-tsa.ts';
import { loadTestSigner, testPkiPaths, type IssueOptions, type TsaSigner } from './pkijs-tsa.ts';
import { asn1js, pkijs } from '../../../pipeline/vendor/pki.ts';

export type { GenTimeSource, TsaServer };

export type TsaServerBackend =
  | {
      backend: 'pkijs';
      /** Default: the committed TEST-ONLY TSA (test/fixtures/pki/TEST-ONLY-tsa.*). */
      signer?: TsaSigner;
      /** The genTime of every token (or a function called per request); default now. */
      genTime?: GenTimeSource;
      /** Further pkijs TSA options (bad-token variants, policy, …). */
      issue?: Omit<IssueOptions, 'genTime'>;
    }
  | {
      backend: 'openssl';
      /** Default: the committed TEST-ONLY TSA certificate and key. */
      openssl?: Partial<OpensslTsaOptions>;
    };

export type TsaServerOptions = TsaServerBackend & HttpTsaOptions;

export async function startTsaServer(options: TsaServerOptions): Promise<TsaServer> {
  if (options.backend === 'openssl') {
    const paths = testPkiPaths('tsa');
    return serveTsa(await opensslBackend({ certPath: paths.cert, keyPath: paths.key, ...options.openssl }), options);
  }
  return serveTsa(pkijsBackend(options.signer ?? (await loadTestSigner('tsa')), options.genTime, options.issue), options);
}

/**
 * A local HTTP TSA that answers each request with a genuine token of the committed TEST-ONLY TSA
 * (pkijs), minted for the request as `edit` changed it: a token for another request (another or no
 * nonce, another imprint), as a TSA or a man in the middle replaying an old token would send.
 */
export async function startTsaAnsweringAnotherRequest(
  edit: (request: pkijs.TimeStampReq) => void,
  genTime?: GenTimeSource,
): Promise<TsaServer> {
  const inner = pkijsBackend(await loadTestSigner('tsa'), genTime);
  return serveTsa({
    reply(request: Uint8Array): Promise<Uint8Array> {
      const changed = pkijs.TimeStampReq.fromBER(new Uint8Array(request));
      edit(changed);
      return inner.reply(new Uint8Array(changed.toSchema().toBER(false)));
    },
    close: inner.close,
  });
}

/** The edits of startTsaAnsweringAnotherRequest that anchor, intake and seal must refuse, with the code each is refused with. */
export const ANOTHER_REQUEST: Array<[string, 'TSA_NONCE_MISMATCH' | 'TSA_IMPRINT_MISMATCH', (request: pkijs.TimeStampReq) => void]> = [
  [
    'another nonce (an old token for the same bytes, replayed)',
    'TSA_NONCE_MISMATCH',
    (r) => void (r.nonce = new asn1js.Integer({ value: 4242 })),
  ],
  ['no nonce at all', 'TSA_NONCE_MISMATCH', (r) => void delete r.nonce],
  [
    'another imprint, the nonce kept',
    'TSA_IMPRINT_MISMATCH',
    (r) => void (r.messageImprint.hashedMessage = new asn1js.OctetString({ valueHex: new Uint8Array(32).fill(7).buffer })),
  ],
];
