// OpenSSL's `openssl ts -reply` as a TSA: the pipeline's (pipeline/dev/tsa/openssl-tsa.ts), re-exported for the tests.
export * from '../../../pipeline/dev/tsa/openssl-tsa.ts';
