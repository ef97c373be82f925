/**
 * One node: its states and last_error explained, its actions, the run of steps (live while it
 * runs: the node is read every 2 s then, every 10 s otherwise), its fields, ports and history.
 */
import { ApiError, apiMinor, get } from '../api';
import { Badge, ErrorNote, PowerBadge, ProvisionBadge } from '../components';
import { explainLastError } from '../errors';
import { usePoll, useNow } from '../hooks';
import { BUSY_STATES } from '../states';
import { type HistoryEvent, stepRun } from '../steps';
import { Actions } from './actions';
import { FieldGroups, HistoryTimeline, PortsTable } from './node-details';
import { StepsPanel } from './node-steps';

type Item = Readonly<Record<string, unknown>>;

interface Loaded {
  readonly node: Item;
  readonly history: HistoryEvent[] | undefined;
  readonly historyError: string | undefined;
}

async function load(ident: string): Promise<Loaded> {
  const node = await get<Item>(`v1/nodes/${encodeURIComponent(ident)}`);
  if (apiMinor() < 78) return { node, history: undefined, historyError: 'The API is older than 1.78: it keeps no node history.' };
  try {
    const body = await get<{ history: HistoryEvent[] }>(`v1/nodes/${String(node.uuid)}/history?detail=true&limit=1000`);
    return { node, history: body.history, historyError: undefined };
  } catch (err) {
    return { node, history: undefined, historyError: err instanceof ApiError ? err.message : String(err) };
  }
}

function busy(node: Item | undefined): boolean {
  if (!node) return false;
  return BUSY_STATES.has(String(node.provision_state)) || Boolean(node.target_provision_state) || Boolean(node.target_power_state);
}

export function NodeView({ ident }: { ident: string }) {
  const polled = usePoll(
    () => load(ident),
    (d) => (busy(d?.node) ? 2000 : 10_000),
    [ident],
  );
  const uuid = polled.data ? String(polled.data.node.uuid) : undefined;
  const ports = usePoll(
    async () => {
      if (!uuid) return undefined;
      const [p, g] = await Promise.all([
        get<{ ports: Item[] }>(`v1/nodes/${uuid}/ports?detail=true`),
        apiMinor() >= 24 ? get<{ portgroups: Item[] }>(`v1/nodes/${uuid}/portgroups?detail=true`) : Promise.resolve({ portgroups: [] }),
      ]);
      return { ports: p.ports, portgroups: g.portgroups };
    },
    () => 30_000,
    [uuid],
  );
  const now = useNow(1000);
  if (!polled.data) {
    return (
      <main id="main" class="page">
        <p class="crumbs">
          <a href="#/fleet">Fleet</a> /
        </p>
        <h1>{ident}</h1>
        {polled.error ? <ErrorNote error={polled.error} prefix="Reading the node failed" /> : <p role="status">Loading…</p>}
      </main>
    );
  }
  const { node, history, historyError } = polled.data;
  const lastError = node.last_error as string | null;
  const explanation = explainLastError(lastError, node.provision_state as string);
  const run = stepRun(node, history ?? [], now);
  return (
    <main id="main" class="page">
      <p class="crumbs">
        <a href="#/fleet">Fleet</a> /
      </p>
      <div class="node-head">
        <div>
          <h1>{String(node.name ?? node.uuid)}</h1>
          <p class="mono sub">{String(node.uuid)}</p>
        </div>
        <dl class="head-states">
          <div>
            <dt>Provision state</dt>
            <dd>
              <ProvisionBadge state={node.provision_state as string} target={node.target_provision_state as string | null} />
            </dd>
          </div>
          <div>
            <dt>Power</dt>
            <dd>
              <PowerBadge state={node.power_state as string | null} target={node.target_power_state as string | null} />
            </dd>
          </div>
          <div>
            <dt>Maintenance</dt>
            <dd>
              {node.maintenance ? (
                <Badge tone="hold" title={String(node.maintenance_reason ?? '')}>
                  {`maintenance${node.maintenance_reason ? `: ${String(node.maintenance_reason)}` : ''}`}
                </Badge>
              ) : (
                <span class="muted">no</span>
              )}
              {node.fault ? <Badge tone="failed">{`fault: ${String(node.fault)}`}</Badge> : null}
            </dd>
          </div>
          <div>
            <dt>Driver</dt>
            <dd>{String(node.driver)}</dd>
          </div>
          {node.reservation ? (
            <div>
              <dt>Locked by</dt>
              <dd class="mono">{String(node.reservation)}</dd>
            </div>
          ) : null}
        </dl>
      </div>
      {polled.error ? <ErrorNote error={polled.error} prefix="Refreshing failed (showing the last answer)" /> : null}
      {lastError ? (
        <div class="note error last-error">
          <h2>Last error</h2>
          <p class="mono">{lastError}</p>
          {explanation ? <p class="explain">{explanation}</p> : null}
        </div>
      ) : null}
      <Actions node={node} onChanged={polled.reload} />
      <StepsPanel run={run} node={node} now={now} />
      <div class="two-col">
        <HistoryTimeline history={history} {...(historyError ? { error: historyError } : {})} />
        <PortsTable ports={ports.data?.ports} portgroups={ports.data?.portgroups} />
      </div>
      <FieldGroups node={node} />
    </main>
  );
}
