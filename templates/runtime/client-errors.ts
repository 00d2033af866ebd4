/**
 * Requests Node's HTTP layer refuses before Fastify sees them (a byte not allowed in a header, headers over
 * the size limit, a request that took too long, a method Node does not know, CONNECT) are answered with the
 * error body of the catalog like every other error, written on the raw socket, which is then closed.
 */
import { randomUUID } from "node:crypto";
import http, { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { ConnectionError, FastifyInstance } from "fastify";
import { allowedMethods } from "./methods.js";
import type { ServiceContext } from "./context.js";
import { requestIdOf } from "./request-id.js";

/** A whole HTTP/1.1 response with the error body of `key`, closing the connection: its head, and its body. */
interface RawAnswer {
  readonly head: string;
  readonly body: string;
}

/** How long a refused connection is drained before it is cut. */
const LINGER_MS = 1000;

function rawAnswer(svc: ServiceContext, key: string, extra?: { allow?: string; dev?: string }): RawAnswer {
  const error = svc.error(key, "", extra?.dev);
  const body = JSON.stringify(error.body);
  const allow = extra?.allow === undefined ? "" : `Allow: ${extra.allow}\r\n`;
  return {
    head:
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${allow}Cache-Control: no-store\r\nConnection: close\r\n\r\n`,
    body,
  };
}

/** 405 with Allow when `target` is a routed path, else 404: for a method no route can have. */
function methodAnswer(svc: ServiceContext, app: FastifyInstance, method: string, target: string): RawAnswer {
  const path = target.split("?")[0]!;
  const allowed = path.startsWith("/") ? allowedMethods(app, path) : [];
  if (allowed.length === 0) return rawAnswer(svc, "routeNotFound", { dev: `No route matches ${method} ${path}.` });
  const allow = allowed.join(", ");
  return rawAnswer(svc, "methodNotAllowed", { allow, dev: `This route answers ${allow}.` });
}

/**
 * The method and target of a request line, from the bytes Node received; undefined when they do not start
 * with one. The target is "" when it does not end in what was received (a URL over the header limit).
 */
function requestLine(packet: Buffer | undefined): { method: string; target: string } | undefined {
  if (packet === undefined) return undefined;
  const text = packet.toString("latin1", 0, Math.min(packet.length, 20_000));
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}) +/.exec(text);
  if (!m) return undefined;
  const end = text.indexOf(" ", m[0].length);
  return { method: m[1]!, target: end < 0 ? "" : text.slice(m[0].length, end) };
}

/**
 * Writes `answer` (its head alone to a HEAD request) and closes the socket. What the client still sends is
 * read and dropped for a moment first: closing a socket with unread bytes resets the connection, and the
 * client could lose the answer.
 */
function refuse(socket: Duplex, answer: RawAnswer, head: boolean): void {
  socket.removeAllListeners("data"); // Node's parser: it would only report the same error again
  socket.on("data", () => undefined);
  socket.on("end", () => socket.destroy());
  socket.on("error", () => socket.destroy());
  // A request id of its own (the request's headers were not read): the answer names it, as every answer does.
  const named = `${answer.head.slice(0, -2)}X-Request-Id: ${randomUUID()}\r\n\r\n`;
  socket.end(head ? named : named + answer.body);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Fastify's `clientErrorHandler` (called with the app as `this`): 408 for a timeout, 431 for headers
 * over the limit, 405 or 404 for a method Node does not know, 400 for any other unreadable request.
 * Nothing is written once a response has begun on the socket, which is then closed at once.
 */
export function clientErrorHandler(svc: ServiceContext): (this: FastifyInstance, error: ConnectionError, socket: Socket) => void {
  const timeout = rawAnswer(svc, "requestTimeout");
  const tooLarge = rawAnswer(svc, "headersTooLarge");
  const malformed = rawAnswer(svc, "malformedRequest");
  return function onClientError(this: FastifyInstance, error: ConnectionError, socket: Socket) {
    this.log.debug({ err: error }, "client error");
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || error.code === "EPIPE" || socket.destroyed || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const line = requestLine(error.rawPacket as unknown as Buffer | undefined); // Node's type; Fastify's says JSON
    let answer = malformed;
    if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") answer = timeout;
    else if (error.code === "HPE_HEADER_OVERFLOW") answer = tooLarge;
    else if (error.code === "HPE_INVALID_METHOD" && line !== undefined) answer = methodAnswer(svc, this, line.method, line.target);
    refuse(socket, answer, line?.method === "HEAD");
  };
}

/**
 * Fastify's `serverFactory`: Node's HTTP or HTTPS server with `options` (limits.ts), whose request listener
 * answers an HTTP/1.1 request without a Host header with a 400 and the error body (RFC 9112 requires the
 * 400; Node's own has no body) before handing every other request to Fastify.
 */
export function serverFactoryOf(svc: ServiceContext, options: http.ServerOptions, tls: { readonly cert: string | Buffer; readonly key: string | Buffer } | undefined) {
  const error = svc.error("malformedRequest", "", "An HTTP/1.1 request needs a Host header.");
  const body = JSON.stringify(error.body);
  const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "cache-control": "no-store", connection: "close" };
  return (handler: (req: IncomingMessage, res: ServerResponse) => void): Server => {
    const listener = (req: IncomingMessage, res: ServerResponse): void => {
      if (req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) res.writeHead(error.status, { ...headers, "x-request-id": requestIdOf(req) }).end(body);
      else handler(req, res);
    };
    const own = { ...options, requireHostHeader: false }; // checked by the listener, to answer with the error body
    const server = tls ? https.createServer({ ...own, cert: tls.cert, key: tls.key }, listener) : http.createServer(own, listener);
    // Set again as properties: Node reads these two from the options only in recent versions.
    server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout ?? server.requestTimeout;
    return server as Server;
  };
}

/**
 * Answers what Node hands the server outside its request event: CONNECT (405 or 404, as for any method no
 * route has) and an Expect other than 100-continue, which is ignored (RFC 9110 allows it) rather than
 * answered with Node's bodiless 417.
 */
export function answerOutsideRequests(server: Server, svc: ServiceContext, app: FastifyInstance): void {
  server.on("connect", (req: IncomingMessage, socket: Duplex) => refuse(socket, methodAnswer(svc, app, req.method ?? "CONNECT", req.url ?? ""), false));
  server.on("checkExpectation", (req, res) => server.emit("request", req, res));
}
