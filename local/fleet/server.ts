/**
 * One HTTP(S) server on loopback for every virtual BMC of a fleet: Redfish under `/redfish/v1`
 * (HTTP basic authentication with each machine's own credentials) and a control API under
 * `/fleet/v1` to inspect machines and inject faults. Faults apply to the requests that name a
 * machine (`/redfish/v1/Systems/<id>/…`, its Manager and Chassis); the service root and the
 * collections are shared by all machines and stay up.
 *
 * NOTE: machines share one listening port, so a "down" machine cannot refuse connections; `reset`
 * drops them instead (the client sees ECONNRESET). Stopping the fleet gives real refusals.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseAgentFaults } from './agent/faults';
import { agentImage } from './agent-images';
import { firmwareOf } from './firmware';
import type { Faults, VirtualMachine } from './machine';
import { machineIdOf, redfishError, type RedfishReply, routeRedfish } from './redfish';
import { INVENTORY_RESOURCES } from './redfish-inventory';
import { bmcRestarting } from './firmware';

const MAX_BODY = 1024 * 1024;

/** The ISO the machines are given as their deploy ramdisk; a guest factory recognises its URL. */
export { AGENT_ISO_PATH } from './agent-images';

export interface FleetServerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Serve HTTPS with this key and certificate (PEM). */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
}

/** Check a fault set from the control API; returns an error message or the faults. */
export function parseFaults(value: unknown): Faults | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'faults must be a JSON object';
  const f = value as Record<string, unknown>;
  const known = [
    'down',
    'slowMs',
    'errorStatus',
    'errorCount',
    'errorMethods',
    'unauthorized',
    'powerStuck',
    'consoleUnavailable',
    'biosIgnoresSettings',
    'firmwareUpdateFails',
    'nicUpdateStartsOnReset',
    'bmcVersionUnchanged',
    'bmcRestartMs',
    'mediaUnreachable',
    'health',
    'mediaCorrupt',
    'missingResources',
    'brokenResources',
    'bootModeApply',
    'bootModeDelayMs',
    'postRejectsBootOverride',
    'secureBootApply',
    'idracJobQueue',
  ];
  const unknown = Object.keys(f).filter((k) => !known.includes(k));
  if (unknown.length > 0) return `unknown fault(s): ${unknown.join(', ')}; known: ${known.join(', ')}`;
  const wholeNumber = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
  if (f.down !== undefined && f.down !== 'reset' && f.down !== 'hang') return 'down must be "reset" or "hang"';
  if (f.health !== undefined && !['OK', 'Warning', 'Critical'].includes(f.health as string))
    return 'health must be "OK", "Warning" or "Critical"';
  const counts = ['slowMs', 'errorCount', 'bmcRestartMs', 'bootModeDelayMs', 'postRejectsBootOverride'];
  if (!counts.every((name) => wholeNumber(f[name]))) return `${counts.slice(0, -1).join(', ')} and ${counts.at(-1)} must be whole numbers`;
  for (const name of ['bootModeApply', 'secureBootApply']) {
    if (f[name] !== undefined && f[name] !== 'reboot' && f[name] !== 'never') return `${name} must be "reboot" or "never"`;
  }
  if (f.idracJobQueue !== undefined && f.idracJobQueue !== 'staged' && f.idracJobQueue !== 'downloadFails') {
    return 'idracJobQueue must be "staged" or "downloadFails"';
  }
  if (
    f.errorStatus !== undefined &&
    !(Number.isInteger(f.errorStatus) && (f.errorStatus as number) >= 400 && (f.errorStatus as number) <= 599)
  ) {
    return 'errorStatus must be an HTTP error status (400-599)';
  }
  if (f.errorMethods !== undefined && !(Array.isArray(f.errorMethods) && f.errorMethods.every((m) => typeof m === 'string'))) {
    return 'errorMethods must be a list of HTTP methods';
  }
  for (const key of ['missingResources', 'brokenResources']) {
    const names = f[key];
    if (names !== undefined && !(Array.isArray(names) && names.every((n) => (INVENTORY_RESOURCES as readonly unknown[]).includes(n)))) {
      return `${key} must be a list of: ${INVENTORY_RESOURCES.join(', ')}`;
    }
  }
  for (const flag of [
    'unauthorized',
    'powerStuck',
    'consoleUnavailable',
    'biosIgnoresSettings',
    'firmwareUpdateFails',
    'nicUpdateStartsOnReset',
    'bmcVersionUnchanged',
    'mediaUnreachable',
    'mediaCorrupt',
  ]) {
    if (f[flag] !== undefined && typeof f[flag] !== 'boolean') return `${flag} must be true or false`;
  }
  return f as Faults;
}

/** What the control API shows of a machine. */
export function describeMachine(m: VirtualMachine) {
  return {
    id: m.id,
    uuid: m.uuid,
    redfish_system_id: `/redfish/v1/Systems/${m.id}`,
    power_state: m.powerState,
    boot: { ...m.boot },
    secure_boot: m.secureBoot,
    media: structuredClone(m.media),
    faults: { ...m.faults },
    leds: structuredClone(m.leds),
    firmware: (({ bios, bmc, nic, stagedBios, stagedNic }) => ({
      bios,
      bmc,
      nic,
      staged_bios: stagedBios ?? null,
      staged_nic: stagedNic ?? null,
    }))(firmwareOf(m)),
    console_views: m.consoleViews,
    agent_faults: { ...m.agentFaults },
    disk: m.disk ? (({ content: _c, ...rest }) => rest)(m.disk) : null,
    // The ramdisk agent running on it, if any (duck-typed: the fleet does not depend on the agent).
    agent: (m.runningGuest as { describe?: () => unknown } | undefined)?.describe?.() ?? null,
    nics: m.spec.nics.map((n) => ({ id: n.id, mac: n.mac, enabled: n.enabled })),
    boots: m.boots.slice(-5).map(({ machine: _m, ...boot }) => boot),
  };
}

/** The ResetType of a ComputerSystem.Reset body, for the request log. */
function resetTypeOf(text: string): { resetType?: string } {
  try {
    const body = JSON.parse(text) as { ResetType?: unknown };
    return typeof body?.ResetType === 'string' ? { resetType: body.ResetType } : {};
  } catch {
    return {};
  }
}

function credentialsOf(req: IncomingMessage): { username: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class FleetServer {
  private server: Server | undefined;

  constructor(private readonly machines: ReadonlyMap<string, VirtualMachine>) {}

  async start(options: FleetServerOptions = {}): Promise<string> {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      void this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    };
    const server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createHttpServer(handler);
    this.server = server;
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const scheme = options.tls ? 'https' : 'http';
    const shownHost = host.includes(':') ? `[${host}]` : host;
    return `${scheme}://${shownHost}:${(server.address() as AddressInfo).port}`;
  }

  /** Stop listening and drop every connection, hung ones included. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) return this.reply(res, redfishError(413, 'Base.1.8.GeneralError', 'Request too large'));
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fleet');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';

    if (path.startsWith('/fleet/v1')) return this.control(res, method, path, text);
    // The agent's images (its ISO, or its kernel, ramdisk and ESP image): something to fetch, as a BMC or a conductor would.
    const image = agentImage(path);
    if (image !== undefined && (method === 'GET' || method === 'HEAD')) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(image.length) });
      res.end(method === 'GET' ? image : undefined);
      return;
    }
    if (path !== '/redfish/v1' && !path.startsWith('/redfish/v1/')) {
      return this.reply(res, redfishError(404, 'Base.1.8.ResourceMissingAtURI', `The resource at the URI ${path} was not found.`));
    }

    const id = machineIdOf(path);
    const machine = id === undefined ? undefined : this.machines.get(id);
    if (machine) {
      machine.requests.push({ at: Date.now(), method, path, ...resetTypeOf(text) });
      if (machine.requests.length > 1000) machine.requests.splice(0, machine.requests.length - 1000);
      const faults = machine.faults;
      // A BMC restarting after its own firmware update refuses connections, as `down: reset`.
      if (faults.down === 'reset' || bmcRestarting(machine)) {
        req.socket.resetAndDestroy();
        return;
      }
      // A hung BMC: the connection stays open and nothing ever comes back.
      if (faults.down === 'hang') return;
      if (faults.slowMs) await new Promise((resolve) => setTimeout(resolve, faults.slowMs));
    }

    if (path !== '/redfish/v1' && !this.authorized(req, machine)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="Ironless virtual BMC"');
      return this.reply(res, redfishError(401, 'Base.1.8.NoValidSession', `The credentials given for ${path} are not valid.`));
    }

    if (machine && (machine.faults.errorStatus !== undefined || machine.faults.errorCount !== undefined)) {
      const { errorCount, errorStatus = 500, errorMethods } = machine.faults;
      if ((errorCount === undefined || errorCount > 0) && (errorMethods === undefined || errorMethods.includes(method))) {
        if (errorCount !== undefined) machine.faults = { ...machine.faults, errorCount: errorCount - 1 };
        return this.reply(
          res,
          redfishError(errorStatus, 'Base.1.8.InternalError', 'The request failed due to an internal service error (injected).'),
        );
      }
    }

    let body: unknown;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return this.reply(res, redfishError(400, 'Base.1.8.MalformedJSON', 'The request body submitted was malformed JSON.'));
      }
    }
    this.reply(res, routeRedfish(this.machines, { method, path, body, query: url.search.slice(1) }));
  }

  /** The machine's own credentials for its resources; any machine's for the shared collections. */
  private authorized(req: IncomingMessage, machine: VirtualMachine | undefined): boolean {
    const given = credentialsOf(req);
    if (given === undefined) return false;
    const candidates = machine ? [machine] : [...this.machines.values()];
    return candidates.some((m) => !m.faults.unauthorized && m.spec.username === given.username && m.spec.password === given.password);
  }

  private reply(res: ServerResponse, reply: RedfishReply): void {
    if (reply.body === undefined) {
      res.writeHead(reply.status, { ...reply.headers, 'OData-Version': '4.0' });
      res.end();
      return;
    }
    const json = JSON.stringify(reply.body);
    res.writeHead(reply.status, { ...reply.headers, 'Content-Type': 'application/json', 'OData-Version': '4.0' });
    res.end(json);
  }

  /** `/fleet/v1/machines[/<id>[/faults|/agent-faults|/requests]]`: look at machines and set or clear their faults. */
  private control(res: ServerResponse, method: string, path: string, text: string): void {
    const json = (status: number, body?: unknown) => this.reply(res, { status, body });
    const segments = path.split('/').filter(Boolean).slice(2).map(decodeURIComponent);
    const [collection, id, sub] = segments;
    if (collection !== 'machines' || segments.length > 3) return json(404, { error: `no such resource: ${path}` });
    if (id === undefined) {
      return method === 'GET'
        ? json(200, { machines: [...this.machines.values()].map(describeMachine) })
        : json(405, { error: 'GET only' });
    }
    const machine = this.machines.get(id);
    if (!machine) return json(404, { error: `no machine ${id}` });
    if (sub === undefined) return method === 'GET' ? json(200, describeMachine(machine)) : json(405, { error: 'GET only' });
    if (sub === 'requests') return method === 'GET' ? json(200, { requests: machine.requests }) : json(405, { error: 'GET only' });
    if (sub !== 'faults' && sub !== 'agent-faults') return json(404, { error: `no such resource: ${path}` });
    const agent = sub === 'agent-faults';
    if (method === 'GET') return json(200, agent ? { ...machine.agentFaults } : { ...machine.faults });
    if (method === 'DELETE') {
      if (agent) machine.setAgentFaults({});
      else machine.clearFaults();
      return json(204);
    }
    if (method !== 'PUT') return json(405, { error: 'GET, PUT or DELETE' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return json(400, { error: 'the body must be JSON' });
    }
    if (agent) {
      const agentFaults = parseAgentFaults(parsed);
      if (typeof agentFaults === 'string') return json(400, { error: agentFaults });
      machine.setAgentFaults(agentFaults);
      return json(200, { ...machine.agentFaults });
    }
    const faults = parseFaults(parsed);
    if (typeof faults === 'string') return json(400, { error: faults });
    machine.setFaults(faults);
    return json(200, { ...machine.faults });
  }
}
