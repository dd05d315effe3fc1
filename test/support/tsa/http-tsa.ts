// The tests' local TSA over HTTP: the pipeline's TEST-ONLY server (pipeline/dev/tsa/http-tsa.ts)
// in front of the pkijs or the OpenSSL TSA, with the committed TEST-ONLY PKI as the default signer.
import { opensslBackend, pkijsBackend, serveTsa, type GenTimeSource, type HttpTsaOptions, type TsaServer } from '../../../pipeline/dev/tsa/http-tsa.ts';
import type { OpensslTsaOptions } from '../../../pipeline/dev/tsa/openssl-tsa.ts';
import { loadTestSigner, testPkiPaths, type IssueOptions, type TsaSigner } from './pkijs-tsa.ts';

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
