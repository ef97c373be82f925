/** A node's fields in Ironic's groups (secrets masked), its ports and portgroups, its history. */
import { Badge, Json } from '../components';
import { clock, maskSecrets, show } from '../format';
import { groupFields } from '../fields';
import type { HistoryEvent } from '../steps';

type Item = Readonly<Record<string, unknown>>;

export function FieldGroups({ node }: { node: Item }) {
  const groups = groupFields(maskSecrets(node) as Item);
  return (
    <section aria-labelledby="fields-title">
      <h2 id="fields-title">Fields</h2>
      <div class="field-grid">
        {groups.map((g) => (
          <div class="panel field-group" key={g.title}>
            <h3>{g.title}</h3>
            <dl>
              {g.entries.map(([key, value]) => (
                <div key={key} class={value !== null && typeof value === 'object' ? 'wide' : undefined}>
                  <dt>{key}</dt>
                  <dd>
                    {value !== null && typeof value === 'object' && Object.keys(value).length > 0 ? (
                      <Json value={value} />
                    ) : (
                      <span class={value === null || value === '' ? 'muted' : undefined}>{show(value)}</span>
                    )}
                  </dd>
                </div>
              ))}
            </dl>
          </div>
        ))}
      </div>
    </section>
  );
}

export function PortsTable({ ports, portgroups }: { ports: readonly Item[] | undefined; portgroups: readonly Item[] | undefined }) {
  return (
    <section aria-labelledby="ports-title" class="panel">
      <h2 id="ports-title">Ports and portgroups</h2>
      {ports && ports.length > 0 ? (
        <table class="compact">
          <caption>Ports</caption>
          <thead>
            <tr>
              <th scope="col">MAC address</th>
              <th scope="col">PXE</th>
              <th scope="col">Physical network</th>
              <th scope="col">Portgroup</th>
              <th scope="col">Switch (local link)</th>
            </tr>
          </thead>
          <tbody>
            {ports.map((p) => (
              <tr key={String(p.uuid)}>
                <td class="mono" title={`Port ${String(p.uuid)}`}>
                  {show(p.address)}
                </td>
                <td>{show(p.pxe_enabled)}</td>
                <td>{show(p.physical_network)}</td>
                <td class="mono">{show(p.portgroup_uuid)}</td>
                <td class="mono">{show(p.local_link_connection)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">{ports ? 'No ports.' : 'Loading ports…'}</p>
      )}
      {portgroups && portgroups.length > 0 ? (
        <table class="compact">
          <caption>Portgroups</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">MAC address</th>
              <th scope="col">Mode</th>
              <th scope="col">Standalone ports</th>
            </tr>
          </thead>
          <tbody>
            {portgroups.map((p) => (
              <tr key={String(p.uuid)}>
                <td>{show(p.name)}</td>
                <td class="mono">{show(p.address)}</td>
                <td>{show(p.mode)}</td>
                <td>{show(p.standalone_ports_supported)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : portgroups ? (
        <p class="muted">No portgroups.</p>
      ) : null}
    </section>
  );
}

/** The node's history, newest first. */
export function HistoryTimeline({ history, error }: { history: readonly HistoryEvent[] | undefined; error?: string }) {
  const events = [...(history ?? [])].reverse();
  return (
    <section aria-labelledby="history-title" class="panel">
      <h2 id="history-title">History</h2>
      {error ? <p class="muted">{error}</p> : null}
      {events.length === 0 && !error ? <p class="muted">{history ? 'No events recorded.' : 'Loading history…'}</p> : null}
      <ol class="timeline">
        {events.map((e, i) => (
          <li key={e.uuid ?? i} class={e.severity === 'ERROR' ? 'error' : undefined}>
            <time dateTime={e.created_at}>{clock(e.created_at)}</time>
            <Badge tone={e.severity === 'ERROR' ? 'failed' : 'idle'}>{e.severity ?? 'INFO'}</Badge>
            <span class="event-type">{e.event_type ?? ''}</span>
            <span class="event">
              {e.event}
              {e.conductor ? <span class="sub"> · {e.conductor}</span> : null}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
