/**
 * The fleet: counts, then the nodes a page at a time. The table asks the API for one page with
 * the filters chosen (`provision_state`, `maintenance`, `fault`, `shard`, `conductor_group`,
 * `owner`, `driver`, `resource_class`) and `limit`/`marker`, in the API's own order (creation):
 * one request per page whatever the fleet's size. (Other sort keys make Ironless read every
 * matching node to sort them, so the table does not offer them.)
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiMinor, get } from '../api';
import { ErrorNote, PowerBadge, ProvisionBadge } from '../components';
import { ago } from '../format';
import { navigate, useNow, usePoll } from '../hooks';
import { FleetCounts } from './fleet-counts';
import { FILTER_KEYS, FleetFilters } from './fleet-filters';

type NodeRow = Readonly<Record<string, unknown>> & { readonly uuid: string };

const TABLE_FIELDS: readonly [string, number][] = [
  ['uuid', 1],
  ['name', 5],
  ['provision_state', 1],
  ['target_provision_state', 1],
  ['power_state', 1],
  ['target_power_state', 1],
  ['maintenance', 1],
  ['fault', 42],
  ['driver', 1],
  ['conductor_group', 46],
  ['shard', 82],
  ['owner', 50],
  ['resource_class', 21],
  ['instance_uuid', 1],
  ['provision_updated_at', 1],
  ['last_error', 1],
];

function listPath(query: Readonly<Record<string, string>>, limit: number, marker: string | undefined): string {
  const params = new URLSearchParams();
  params.set(
    'fields',
    TABLE_FIELDS.filter(([, minor]) => minor <= apiMinor())
      .map(([f]) => f)
      .join(','),
  );
  params.set('limit', String(limit));
  if (marker) params.set('marker', marker);
  for (const key of FILTER_KEYS) if (query[key] !== undefined) params.set(key, query[key]);
  return `v1/nodes?${params.toString()}`;
}

const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The node a search names: by MAC (its port), UUID, instance UUID or exact name. */
async function findNode(text: string): Promise<string> {
  const term = text.trim();
  const missing = (e: unknown) => e instanceof ApiError && e.status === 404;
  if (MAC.test(term)) {
    const ports = await get<{ ports: { node_uuid: string }[] }>(
      `v1/ports?address=${encodeURIComponent(term.replace(/-/g, ':'))}&fields=uuid,node_uuid`,
    );
    const port = ports.ports[0];
    if (!port) throw new Error(`No port has the MAC address ${term}.`);
    return port.node_uuid;
  }
  try {
    const node = await get<{ uuid: string }>(`v1/nodes/${encodeURIComponent(term)}?fields=uuid`);
    return node.uuid;
  } catch (e) {
    if (!missing(e)) throw e;
  }
  if (UUID.test(term)) {
    const found = await get<{ nodes: { uuid: string }[] }>(`v1/nodes?instance_uuid=${term}&fields=uuid`);
    if (found.nodes[0]) return found.nodes[0].uuid;
    throw new Error(`No node or instance has the UUID ${term}.`);
  }
  throw new Error(`No node is named “${term}” (names match exactly).`);
}

function Search() {
  const [text, setText] = useState('');
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        findNode(text).then(
          (uuid) => navigate({ view: 'node', ident: uuid }),
          (err: Error) => {
            setError(err);
            setBusy(false);
          },
        );
      }}
    >
      <label for="search">Find a node</label>
      <input
        id="search"
        type="search"
        placeholder="Name, UUID, MAC address or instance UUID"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        required
      />
      <button type="submit" disabled={busy}>
        Find
      </button>
      {error ? (
        error instanceof ApiError ? (
          <ErrorNote error={error} />
        ) : (
          <p class="note error" role="alert">
            {error.message}
          </p>
        )
      ) : null}
    </form>
  );
}

export function FleetView({ query }: { query: Readonly<Record<string, string>> }) {
  const [markers, setMarkers] = useState<string[]>([]);
  const limit = Math.min(1000, Math.max(1, Number(query.limit ?? 50) || 50));
  const setLimit = (n: number) => navigate({ view: 'fleet', query: { ...query, limit: String(n) } });
  const key = JSON.stringify(query);
  useEffect(() => setMarkers([]), [key, limit]);
  const marker = markers.at(-1);
  const page = usePoll(
    () => get<{ nodes: NodeRow[]; next?: string }>(listPath(query, limit, marker)),
    () => 10_000,
    [key, limit, marker],
  );
  const now = useNow(5000);
  const setQuery = (next: Record<string, string>) => navigate({ view: 'fleet', query: next });
  const select = ([k, v]: [string, string]) => {
    const next: Record<string, string> = { ...query };
    delete next.shard;
    delete next.sharded;
    if (query[k] === v) delete next[k];
    else next[k] = v;
    setQuery(next);
  };
  const nodes = page.data?.nodes ?? [];
  const filtered = FILTER_KEYS.some((k) => query[k] !== undefined);
  return (
    <main id="main" class="page">
      <div class="page-head">
        <h1>Fleet</h1>
        <Search />
      </div>
      <FleetCounts query={query} select={select} />
      <section aria-labelledby="nodes-title">
        <div class="section-head">
          <h2 id="nodes-title">Nodes</h2>
          <p class="hint" role="status">
            {page.loading && !page.data
              ? 'Loading…'
              : `Page ${markers.length + 1} · ${nodes.length} node${nodes.length === 1 ? '' : 's'}${filtered ? ' matching the filters' : ''}`}
          </p>
        </div>
        <FleetFilters query={query} onChange={setQuery} />
        <ErrorNote error={page.error} prefix="Listing nodes failed" />
        <div class="table-wrap">
          <table class="nodes">
            <caption class="visually-hidden">Nodes, page {markers.length + 1}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provision state</th>
                <th scope="col">Power</th>
                <th scope="col">Maintenance</th>
                <th scope="col">Driver</th>
                <th scope="col">Group / shard</th>
                <th scope="col">Owner</th>
                <th scope="col">Changed</th>
                <th scope="col">Last error</th>
              </tr>
            </thead>
            <tbody>
              {nodes.map((n) => (
                <tr key={n.uuid}>
                  <td>
                    <a href={`#/nodes/${n.uuid}`}>{(n.name as string | null) ?? n.uuid}</a>
                    <div class="sub mono" title={n.uuid}>
                      {n.uuid.slice(0, 8)}…
                    </div>
                  </td>
                  <td>
                    <ProvisionBadge state={n.provision_state as string} target={n.target_provision_state as string | null} />
                  </td>
                  <td>
                    <PowerBadge state={n.power_state as string | null} target={n.target_power_state as string | null} />
                  </td>
                  <td>
                    {n.maintenance ? <span class="flag hold">maintenance</span> : <span class="muted">no</span>}
                    {n.fault ? <span class="flag failed">{String(n.fault)}</span> : null}
                  </td>
                  <td>{String(n.driver ?? '')}</td>
                  <td>
                    {(n.conductor_group as string) || <span class="muted">default</span>}
                    {n.shard ? <span class="sub"> / {String(n.shard)}</span> : null}
                  </td>
                  <td>{(n.owner as string | null) ?? <span class="muted">—</span>}</td>
                  <td title={String(n.provision_updated_at ?? '')}>{ago(n.provision_updated_at as string | null, now)}</td>
                  <td class="error-cell" title={(n.last_error as string | null) ?? ''}>
                    <div class="clip">{(n.last_error as string | null) ?? ''}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.data && nodes.length === 0 ? <p class="empty">No nodes{filtered ? ' match these filters' : ''}.</p> : null}
        </div>
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={markers.length === 0} onClick={() => setMarkers(markers.slice(0, -1))}>
            ← Previous
          </button>
          <button
            type="button"
            disabled={!page.data?.next || nodes.length === 0}
            onClick={() => setMarkers([...markers, (nodes.at(-1) as NodeRow).uuid])}
          >
            Next →
          </button>
          <label>
            Per page{' '}
            <select value={String(limit)} onChange={(e) => setLimit(Number(e.currentTarget.value))}>
              {[...new Set([25, 50, 100, 200, limit])]
                .sort((a, b) => a - b)
                .map((n) => (
                  <option key={n} value={String(n)}>
                    {n}
                  </option>
                ))}
            </select>
          </label>
        </nav>
      </section>
    </main>
  );
}
