/** Conductors (versions, liveness), the rolling upgrade in progress, and the last hour's deploys. */
import { ApiError, get } from '../api';
import { Badge, ErrorNote } from '../components';
import { type ConductorRow, type Upgrade, aliasShares, conductorRows, upgradeRunning } from '../conductors';
import { ago, clock } from '../format';
import { useNow, usePoll } from '../hooks';
import { DeployChart } from './deploy-chart';

async function loadUpgrade(): Promise<Upgrade | undefined> {
  try {
    return await get<Upgrade>('ironless/v1/upgrade');
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405)) return undefined;
    throw err;
  }
}

function UpgradePanel({ upgrade }: { upgrade: Upgrade | undefined }) {
  if (!upgradeRunning(upgrade)) {
    return <p class="note">No upgrade in progress.</p>;
  }
  const tone = upgrade.state === 'stopped' ? 'failed' : upgrade.state === 'complete' ? 'ok' : 'busy';
  return (
    <div class="panel upgrade">
      <p>
        <Badge tone={tone}>{upgrade.state}</Badge>{' '}
        <strong>
          {upgrade.from?.release ?? '?'} → {upgrade.to?.release ?? '?'}
        </strong>
        {upgrade.to?.pinned ? ' (pinned)' : ''}
      </p>
      {upgrade.phase ? (
        <p>
          Phase {upgrade.phase.number ?? '?'}: <strong>{upgrade.phase.title ?? upgrade.phase.name}</strong>{' '}
          {upgrade.phase.name ? <span class="mono sub">{upgrade.phase.name}</span> : null}
        </p>
      ) : null}
      {upgrade.message ? <p>{upgrade.message}</p> : null}
      {Object.entries(upgrade.aliases ?? {}).map(([fn, alias]) => (
        <div class="alias" key={fn}>
          <span class="alias-name">{fn} alias “live”</span>
          <div
            class="split"
            role="img"
            aria-label={aliasShares(alias)
              .map((s) => `version ${s.version}: ${Math.round(s.share * 100)} %`)
              .join(', ')}
          >
            {aliasShares(alias).map((s, i) => (
              <span key={s.version} class={i === 0 ? 'old' : 'new'} style={{ flexGrow: Math.max(s.share, 0.0001) }}>
                v{s.version} {Math.round(s.share * 100)} %
                {upgrade.versions?.[fn]?.[s.version]?.release ? ` · ${upgrade.versions[fn][s.version]?.release}` : ''}
                {upgrade.versions?.[fn]?.[s.version]?.pinned ? ' pinned' : ''}
              </span>
            ))}
          </div>
        </div>
      ))}
      {upgrade.updated_at ? <p class="hint">Updated {clock(upgrade.updated_at)}</p> : null}
    </div>
  );
}

function ConductorTable({ rows, now }: { rows: readonly ConductorRow[]; now: number }) {
  return (
    <table>
      <caption class="visually-hidden">Conductors</caption>
      <thead>
        <tr>
          <th scope="col">Conductor</th>
          <th scope="col">Version</th>
          <th scope="col">Release</th>
          <th scope="col">Group</th>
          <th scope="col">Liveness</th>
          <th scope="col">Last heartbeat</th>
          <th scope="col">Hardware types</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={c.hostname}>
            <td class="mono">{c.hostname}</td>
            <td>{c.version ?? '—'}</td>
            <td>
              {c.release ?? '—'}
              {c.pinned ? ' (pinned)' : ''}
            </td>
            <td>{c.group || <span class="muted">default</span>}</td>
            <td>{c.alive === undefined ? '—' : <Badge tone={c.alive ? 'ok' : 'failed'}>{c.alive ? 'alive' : 'dead'}</Badge>}</td>
            <td title={c.updatedAt}>{ago(c.updatedAt, now)}</td>
            <td>{c.drivers.join(', ') || '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ConductorsView() {
  const upgrade = usePoll(loadUpgrade, (u) => (upgradeRunning(u) ? 5000 : 30_000), []);
  const conductors = usePoll(
    () => get<{ conductors: Record<string, unknown>[] }>('v1/conductors?detail=true').then((b) => b.conductors),
    () => 15_000,
    [],
  );
  const now = useNow(5000);
  const rows = conductorRows(conductors.data ?? [], upgrade.data);
  return (
    <main id="main" class="page">
      <h1>Conductors &amp; upgrades</h1>
      <section aria-labelledby="upgrade-title">
        <h2 id="upgrade-title">Rolling upgrade</h2>
        <ErrorNote error={upgrade.error} prefix="Reading the upgrade failed" />
        {upgrade.loading && !upgrade.data && !upgrade.error ? <p role="status">Loading…</p> : <UpgradePanel upgrade={upgrade.data} />}
      </section>
      <section aria-labelledby="conductors-title">
        <h2 id="conductors-title">Conductors</h2>
        <ErrorNote error={conductors.error} prefix="Listing conductors failed" />
        {conductors.data ? <ConductorTable rows={rows} now={now} /> : <p role="status">Loading…</p>}
      </section>
      <DeployChart />
    </main>
  );
}
