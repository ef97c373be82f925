/**
 * API Gateway (REST API, Lambda proxy integration) on one machine: HTTP requests become the v1
 * proxy events API Gateway sends, the function's result becomes the HTTP response, and a failed
 * invocation is a 502 as API Gateway answers it. Each response is counted as API Gateway's
 * CloudWatch metrics count it (AWS/ApiGateway Count, 4XXError, 5XXError by ApiName and Stage).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { LocalAuthorizer } from './authorizer';
import type { LambdaHost } from './lambda-host';
import type { MetricStore } from './metrics';

/**
 * A resource of its own beside the API's `{proxy+}`, sent to another function without the
 * authorizer (as the CDK stack's `ui` resource: the web console's files).
 */
export interface GatewayRoute {
  /** Path of the resource ("/ui"); it and everything under it go to `functionRef`. */
  readonly prefix: string;
  readonly functionRef: string;
}

/** API Gateway's payload limit. */
const MAX_BODY = 10 * 1024 * 1024;

export class Gateway {
  private server: Server | undefined;

  constructor(
    private readonly lambda: LambdaHost,
    private readonly functionRef: string,
    private readonly stage = 'local',
    /** The REQUEST authorizer in front of the API (http_basic); none = every route open. */
    private readonly authorizer?: LocalAuthorizer,
    private readonly routes: readonly GatewayRoute[] = [],
    /** Where responses are counted, under the API's name. */
    private readonly metrics?: { readonly store: MetricStore; readonly apiName: string },
  ) {}

  async start(port: number, host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => {
      res.on('finish', () => this.count(res.statusCode));
      void this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: 'Internal server error' }));
        void err;
      });
    });
    // Requests Node's HTTP parser refuses (an unknown method, a malformed request line) never reach
    // the function; they are answered in the API's error form rather than with an empty 400.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return;
      const [status, title] = err.code === 'HPE_INVALID_METHOD' ? [405, 'Method Not Allowed'] : [400, 'Bad Request'];
      const body = JSON.stringify({ error_message: JSON.stringify({ code: status, title, description: '' }) });
      socket.end(
        `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      this.server?.once('error', reject);
      this.server?.listen(port, host, resolve);
    });
    return `http://${host}:${(this.server.address() as AddressInfo).port}`;
  }

  /** One request answered: Count, and 4XXError and 5XXError as 0 or 1 (their Average is the error rate). */
  private count(status: number): void {
    if (this.metrics === undefined) return;
    const dimensions = { ApiName: this.metrics.apiName, Stage: this.stage };
    const at = Date.now();
    this.metrics.store.put('AWS/ApiGateway', 'Count', dimensions, 1, at);
    this.metrics.store.put('AWS/ApiGateway', '4XXError', dimensions, status >= 400 && status < 500 ? 1 : 0, at);
    this.metrics.store.put('AWS/ApiGateway', '5XXError', dimensions, status >= 500 ? 1 : 0, at);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) {
        res.writeHead(413, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ message: 'Request Too Long' }));
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const event = this.toEvent(req, Buffer.concat(chunks));
    const route = this.routes.find((r) => event.path === r.prefix || event.path.startsWith(`${r.prefix}/`));
    if (route) {
      event.resource = event.path === route.prefix ? route.prefix : `${route.prefix}/{proxy+}`;
      event.requestContext.resourcePath = event.resource;
      event.pathParameters = event.path === route.prefix ? null : { proxy: event.path.slice(route.prefix.length + 1) };
    } else if (this.authorizer) {
      const outcome = await this.authorizer.check(event);
      if (!outcome.allowed) {
        res.writeHead(outcome.status, { ...outcome.headers, 'Content-Length': String(Buffer.byteLength(outcome.body)) });
        res.end(req.method === 'HEAD' ? undefined : outcome.body);
        return;
      }
      if (outcome.context) event.requestContext.authorizer = outcome.context;
    }
    const result = await this.lambda.invoke(route?.functionRef ?? this.functionRef, event);
    if (result.functionError) {
      res.writeHead(502, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'InternalServerErrorException' });
      res.end(JSON.stringify({ message: 'Internal server error' }));
      return;
    }
    // The function's own value when the host has it (the same JSON the payload would parse to).
    const reply = (result.result !== undefined ? result.result : JSON.parse(result.payload)) as APIGatewayProxyResult | null;
    if (reply === null || typeof reply.statusCode !== 'number') {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal server error' }));
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name] = String(value);
    for (const [name, values] of Object.entries(reply.multiValueHeaders ?? {})) headers[name] = values.map(String);
    const body = reply.isBase64Encoded ? Buffer.from(reply.body ?? '', 'base64') : Buffer.from(reply.body ?? '', 'utf8');
    headers['Content-Length'] = String(body.length);
    res.writeHead(reply.statusCode, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private toEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEvent {
    // The request target is split by hand: as a URL, "//x/y" would name a host "x".
    const target = req.url ?? '/';
    const mark = target.indexOf('?');
    const url = {
      pathname: mark < 0 ? target : target.slice(0, mark),
      searchParams: new URLSearchParams(mark < 0 ? '' : target.slice(mark + 1)),
    };
    const headers: Record<string, string> = {};
    const multiValueHeaders: Record<string, string[]> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] as string;
      const value = req.rawHeaders[i + 1] as string;
      headers[name] = value;
      (multiValueHeaders[name] ??= []).push(value);
    }
    headers['X-Forwarded-Proto'] ??= 'http';
    multiValueHeaders['X-Forwarded-Proto'] ??= ['http'];
    const query: Record<string, string> = {};
    const multiQuery: Record<string, string[]> = {};
    for (const [key, value] of url.searchParams) {
      query[key] = value;
      (multiQuery[key] ??= []).push(value);
    }
    const hasQuery = Object.keys(query).length > 0;
    const path = url.pathname;
    const text = body.toString('utf8');
    const binary = !Buffer.from(text, 'utf8').equals(body);
    const requestId = randomUUID();
    return {
      resource: path === '/' ? '/' : '/{proxy+}',
      path,
      httpMethod: req.method ?? 'GET',
      headers,
      multiValueHeaders,
      queryStringParameters: hasQuery ? query : null,
      multiValueQueryStringParameters: hasQuery ? multiQuery : null,
      pathParameters: path === '/' ? null : { proxy: path.slice(1) },
      stageVariables: null,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        authorizer: undefined,
        protocol: `HTTP/${req.httpVersion}`,
        httpMethod: req.method ?? 'GET',
        identity: {
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
          userAgent: req.headers['user-agent'] ?? null,
        } as APIGatewayProxyEvent['requestContext']['identity'],
        path,
        stage: this.stage,
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: 'local',
        resourcePath: path === '/' ? '/' : '/{proxy+}',
        domainName: req.headers.host,
      } as APIGatewayProxyEvent['requestContext'],
      body: body.length === 0 ? null : binary ? body.toString('base64') : text,
      isBase64Encoded: binary,
    };
  }
}
