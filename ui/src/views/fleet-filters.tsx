/** The table's filters: each one a list filter of the API, applied together. */
import { useEffect, useState } from 'preact/hooks';
import { apiMinor } from '../api';
import { PROVISION_STATES } from '../states';

/** Query keys that are list filters of the API (with their minimum microversion). */
export const FILTER_KEYS = [
  'provision_state',
  'maintenance',
  'fault',
  'shard',
  'sharded',
  'conductor_group',
  'owner',
  'driver',
  'resource_class',
] as const;

const FAULTS = ['power failure', 'clean failure', 'rescue abort failure', 'service failure'];

const TEXT_FILTERS: readonly { key: (typeof FILTER_KEYS)[number]; label: string; minMinor: number }[] = [
  { key: 'shard', label: 'Shard', minMinor: 82 },
  { key: 'conductor_group', label: 'Conductor group', minMinor: 46 },
  { key: 'owner', label: 'Owner', minMinor: 50 },
  { key: 'driver', label: 'Driver', minMinor: 16 },
  { key: 'resource_class', label: 'Resource class', minMinor: 21 },
];

export function FleetFilters({
  query,
  onChange,
}: {
  query: Readonly<Record<string, string>>;
  onChange: (q: Record<string, string>) => void;
}) {
  const [draft, setDraft] = useState<Record<string, string>>({ ...query });
  useEffect(() => setDraft({ ...query }), [JSON.stringify(query)]);
  const set = (key: string, value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const apply = (next: Record<string, string>) => {
    const clean: Record<string, string> = {};
    for (const [k, v] of Object.entries(next)) if (v !== '' || (k === 'conductor_group' && k in query && v === query[k])) clean[k] = v;
    onChange(clean);
  };
  return (
    <form
      class="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        apply(draft);
      }}
    >
      <label>
        Provision state
        <select value={draft.provision_state ?? ''} onChange={(e) => apply({ ...draft, provision_state: e.currentTarget.value })}>
          <option value="">any</option>
          {PROVISION_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Maintenance
        <select value={draft.maintenance ?? ''} onChange={(e) => apply({ ...draft, maintenance: e.currentTarget.value })}>
          <option value="">any</option>
          <option value="true">in maintenance</option>
          <option value="false">not in maintenance</option>
        </select>
      </label>
      {apiMinor() >= 42 ? (
        <label>
          Fault
          <select value={draft.fault ?? ''} onChange={(e) => apply({ ...draft, fault: e.currentTarget.value })}>
            <option value="">any</option>
            {FAULTS.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {TEXT_FILTERS.filter((f) => f.minMinor <= apiMinor()).map((f) => (
        <label key={f.key}>
          {f.label}
          <input value={draft[f.key] ?? ''} onInput={(e) => set(f.key, e.currentTarget.value)} size={12} />
        </label>
      ))}
      <div class="filter-buttons">
        <button type="submit">Apply</button>
        <button
          type="button"
          class="quiet"
          onClick={() => onChange(query.limit ? { limit: query.limit } : {})}
          disabled={!FILTER_KEYS.some((k) => query[k] !== undefined)}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
