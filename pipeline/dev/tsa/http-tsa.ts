// RFC 3161 §3.4 over HTTP: a local TSA server on 127.0.0.1 in front of a TSA backend (the pkijs
// TSA, or OpenSSL's `openssl ts -reply`). POST application/timestamp-query →
// application/timestamp-reply. TEST-ONLY: `prereg dev tsa` and the tests run it.
//
// Misbehaviour for client tests: `failFirst: n` answers HTTP 503 to the first n requests;
// `neverAnswer` reads requests and never responds (close() destroys those sockets).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createOpensslTsa, type OpensslTsaOptions } from './openssl-tsa.ts';
import { issueTimestampResponse, rejectionResponse, type IssueOptions, type TsaSigner } from './pkijs-tsa.ts';

export type GenTimeSource = string | Date | (() => string | Date);

/** What answers a DER TimeStampReq. */
export interface TsaBackend {
  reply(request: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

export interface HttpTsaOptions {
  /** Answer HTTP 503 to the first n requests, then behave. */
  failFirst?: number;
  /** Accept and read requests but never respond (timeout tests). */
  neverAnswer?: boolean;
  /** The port on 127.0.0.1; default 0 (any free port). */
  port?: number;
}

export interface TsaServer {
  /** http://127.0.0.1:<port>/ */
  readonly url: string;
  /** POST requests received so far, including the ones answered 503 or never answered. */
  readonly requests: number;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;

/** The pkijs TSA signing with `signer`, genTime as given (or now), other token options as given. */
export function pkijsBackend(signer: TsaSigner, genTime?: GenTimeSource, issue: Omit<IssueOptions, 'genTime'> = {}): TsaBackend {
  return {
    async reply(request) {
      const at = genTime === undefined ? new Date() : typeof genTime === 'function' ? genTime() : genTime;
      try {
        return await issueTimestampResponse(request, signer, { ...issue, genTime: at });
      } catch (e) {
        // A TSA that fails internally still answers in protocol: rejection, systemFailure.
        return rejectionResponse('systemFailure', e instanceof Error ? e.message : String(e));
      }
    },
    close: async () => undefined,
  };
}

/** OpenSSL's TSA (`openssl ts -reply`; genTime is OpenSSL's clock). */
export async function opensslBackend(options: OpensslTsaOptions): Promise<TsaBackend> {
  const tsa = await createOpensslTsa(options);
  return { reply: (request) => tsa.reply(request), close: () => tsa.close() };
}

export async function serveTsa(answer: TsaBackend, options: HttpTsaOptions = {}): Promise<TsaServer> {
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
    server.listen(options.port ?? 0, '127.0.0.1', () => {
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
