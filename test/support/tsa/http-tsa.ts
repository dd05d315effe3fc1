// RFC 3161 §3.4 over HTTP: a local TSA server on 127.0.0.1 (random port) in front of the pkijs
// or the OpenSSL TSA. POST application/timestamp-query → application/timestamp-reply.
//
// Misbehaviour for client tests: `failFirst: n` answers HTTP 503 to the first n requests;
// `neverAnswer` reads requests and never responds (close() destroys those sockets).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createOpensslTsa, type OpensslTsa, type OpensslTsaOptions } from './openssl-tsa.ts';
import {
  issueTimestampResponse,
  loadTestSigner,
  rejectionResponse,
  testPkiPaths,
  type IssueOptions,
  type TsaSigner,
} from './pkijs-tsa.ts';

export type GenTimeSource = string | Date | (() => string | Date);

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

export type TsaServerOptions = TsaServerBackend & {
  /** Answer HTTP 503 to the first n requests, then behave. */
  failFirst?: number;
  /** Accept and read requests but never respond (timeout tests). */
  neverAnswer?: boolean;
};

export interface TsaServer {
  /** http://127.0.0.1:<port>/ */
  readonly url: string;
  /** POST requests received so far, including the ones answered 503 or never answered. */
  readonly requests: number;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;

export async function startTsaServer(options: TsaServerOptions): Promise<TsaServer> {
  const answer = await makeBackend(options);
  const sockets = new Set<Socket>();
  let requests = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`TSA error: ${e instanceof Error ? e.message : String(e)}`);
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    requests++;
    const body = await readBody(req);
    if (options.neverAnswer) return; // hold the socket open until close()
    if (requests <= (options.failFirst ?? 0)) {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' }).end('TSA busy (test)');
      return;
    }
    if (body === undefined) {
      res.writeHead(413).end();
      return;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/timestamp-query') {
      res.writeHead(415, { 'content-type': 'text/plain' }).end('expected application/timestamp-query');
      return;
    }
    const reply = await answer.reply(body);
    res.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': String(reply.length) });
    res.end(reply);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/`,
    get requests() {
      return requests;
    },
    close(): Promise<void> {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await stopped;
        await answer.close();
      })();
      return closed;
    },
  };
}

interface Backend {
  reply(request: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

async function makeBackend(options: TsaServerBackend): Promise<Backend> {
  if (options.backend === 'openssl') {
    const paths = testPkiPaths('tsa');
    const tsa: OpensslTsa = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key, ...options.openssl });
    return { reply: (request) => tsa.reply(request), close: () => tsa.close() };
  }
  const signer = options.signer ?? (await loadTestSigner('tsa'));
  const genTime = options.genTime;
  return {
    async reply(request) {
      const at = genTime === undefined ? new Date() : typeof genTime === 'function' ? genTime() : genTime;
      try {
        return await issueTimestampResponse(request, signer, { ...options.issue, genTime: at });
      } catch (e) {
        // A TSA that fails internally still answers in protocol: rejection, systemFailure.
        return rejectionResponse('systemFailure', e instanceof Error ? e.message : String(e));
      }
    },
    close: async () => undefined,
  };
}

/** The request body, or undefined when it exceeds MAX_REQUEST_BYTES (the rest is drained). */
async function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_REQUEST_BYTES) tooBig = true;
    else chunks.push(buf);
  }
  return tooBig ? undefined : new Uint8Array(Buffer.concat(chunks));
}
