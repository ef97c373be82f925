/**
 * Enroll a node: name, hardware type and its driver_info (the API lists the properties each
 * hardware type takes, offered as suggestions). Secrets are typed into password fields; the API
 * masks them in every answer.
 */
import { useState } from 'preact/hooks';
import { get, request } from '../api';
import { ErrorNote } from '../components';
import { navigate, usePoll } from '../hooks';

const SECRET = /pass|secret|token|key/i;

interface Row {
  readonly id: number;
  readonly key: string;
  readonly value: string;
}

let nextRow = 1;

export function EnrollView() {
  const drivers = usePoll(
    () => get<{ drivers: { name: string }[] }>('v1/drivers').then((b) => b.drivers.map((d) => d.name).sort()),
    () => undefined,
    [],
  );
  const [name, setName] = useState('');
  const [driver, setDriver] = useState('');
  const [resourceClass, setResourceClass] = useState('');
  const [rows, setRows] = useState<Row[]>([{ id: nextRow++, key: '', value: '' }]);
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const chosen = driver || drivers.data?.[0] || '';
  const properties = usePoll(
    (): Promise<Record<string, string>> =>
      chosen ? get<Record<string, string>>(`v1/drivers/${encodeURIComponent(chosen)}/properties`) : Promise.resolve({}),
    () => undefined,
    [chosen],
  );
  const update = (id: number, patch: Partial<Row>) => setRows((rs) => rs.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  return (
    <main id="main" class="page narrow">
      <h1>Enroll a node</h1>
      <p>
        The node starts in <strong>enroll</strong>. Then <em>Manage</em> verifies its driver_info with its BMC, and <em>Provide</em> makes
        it available.
      </p>
      <form
        class="panel form"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          const driverInfo = Object.fromEntries(rows.filter((r) => r.key.trim() !== '').map((r) => [r.key.trim(), r.value]));
          const body: Record<string, unknown> = { driver: chosen, driver_info: driverInfo };
          if (name.trim()) body.name = name.trim();
          if (resourceClass.trim()) body.resource_class = resourceClass.trim();
          request<{ uuid: string }>('POST', 'v1/nodes', body).then(
            (r) => navigate({ view: 'node', ident: r.body.uuid }),
            (err: Error) => {
              setError(err);
              setBusy(false);
            },
          );
        }}
      >
        <label>
          Name
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. rack1-node-07" />
        </label>
        <label>
          Hardware type (driver)
          <select value={chosen} onChange={(e) => setDriver(e.currentTarget.value)} required>
            {(drivers.data ?? []).map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        <ErrorNote error={drivers.error} prefix="Listing hardware types failed" />
        <label>
          Resource class (optional)
          <input value={resourceClass} onInput={(e) => setResourceClass(e.currentTarget.value)} />
        </label>
        <fieldset>
          <legend>driver_info</legend>
          <datalist id="driver-properties">
            {Object.keys(properties.data ?? {}).map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          {rows.map((r, i) => (
            <div class="kv" key={r.id}>
              <label>
                Key {i + 1}
                <input list="driver-properties" value={r.key} onInput={(e) => update(r.id, { key: e.currentTarget.value })} />
              </label>
              <label>
                Value {i + 1}
                {SECRET.test(r.key) ? (
                  <input
                    type="password"
                    autocomplete="off"
                    value={r.value}
                    onInput={(e) => update(r.id, { value: e.currentTarget.value })}
                  />
                ) : (
                  <input type="text" autocomplete="off" value={r.value} onInput={(e) => update(r.id, { value: e.currentTarget.value })} />
                )}
              </label>
              <button
                type="button"
                class="quiet"
                aria-label={`Remove key ${i + 1}`}
                onClick={() => setRows((rs) => rs.filter((x) => x.id !== r.id))}
              >
                Remove
              </button>
              {properties.data?.[r.key] ? <p class="hint kv-help">{properties.data[r.key]}</p> : null}
            </div>
          ))}
          <button type="button" onClick={() => setRows((rs) => [...rs, { id: nextRow++, key: '', value: '' }])}>
            Add a driver_info field
          </button>
        </fieldset>
        <ErrorNote error={error} prefix="Enrolling failed" />
        <div class="dialog-buttons">
          <button type="submit" class="primary" disabled={busy || !chosen}>
            {busy ? 'Enrolling…' : 'Enroll'}
          </button>
        </div>
      </form>
    </main>
  );
}
