/** The console's building blocks: state badges (color and words), notes, dialogs, bar tables. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ApiError } from './api';
import { count } from './format';
import { type Tone, powerTone, provisionTone } from './states';

export function Badge({ tone, children, title }: { tone: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge tone-${tone}`} title={title}>
      <span class="dot" aria-hidden="true" />
      {children}
    </span>
  );
}

export function ProvisionBadge({ state, target }: { state: string | null | undefined; target?: string | null | undefined }) {
  return (
    <span class="state">
      <Badge tone={provisionTone(state)}>{state ?? 'unknown'}</Badge>
      {target ? <span class="target"> → {target}</span> : null}
    </span>
  );
}

export function PowerBadge({ state, target }: { state: string | null | undefined; target?: string | null | undefined }) {
  return (
    <span class="state">
      <Badge tone={powerTone(state)}>{state ?? 'power unknown'}</Badge>
      {target ? <span class="target"> → {target}</span> : null}
    </span>
  );
}

/** An API failure in words: what the status means, then the API's own message. */
export function ErrorNote({ error, prefix }: { error: Error | ApiError | undefined; prefix?: string }) {
  if (!error) return null;
  const words = (error as ApiError).words;
  return (
    <div class="note error" role="alert">
      <strong>
        {prefix ? `${prefix}: ` : ''}
        {words ? words.title : 'Something went wrong'}
      </strong>
      {words?.detail || !words ? <p class="detail">{words ? words.detail : error.message}</p> : null}
    </div>
  );
}

/**
 * A modal dialog on the native `<dialog>` (focus moves into it and stays there, Escape closes it,
 * the page behind is inert), labelled by its title.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onClose={onClose}>
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

export interface BarRow {
  readonly key: string;
  readonly label: string;
  readonly value: number;
  readonly tone: Tone | 'neutral';
  /** Show only these nodes in the table; undefined when the API has no filter for it. */
  readonly onSelect?: () => void;
  readonly selected?: boolean;
}

/** Counts as a table whose rows carry a bar: the picture and the numbers in one. */
export function BarTable({
  id,
  title,
  rows,
  total,
  note,
}: {
  id: string;
  title: string;
  rows: readonly BarRow[];
  total: number;
  note?: string;
}) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return (
    <div class="panel count-card">
      <h3 id={`${id}-title`}>{title}</h3>
      <table class="bars" aria-labelledby={`${id}-title`}>
        <thead class="visually-hidden">
          <tr>
            <th scope="col">{title}</th>
            <th scope="col">Nodes</th>
            <th scope="col">Share</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} class={r.selected ? 'selected' : undefined}>
              <th scope="row">
                {r.onSelect ? (
                  <button
                    type="button"
                    class="link"
                    onClick={r.onSelect}
                    aria-pressed={r.selected === true}
                    title={`Show only these nodes`}
                  >
                    {r.label}
                  </button>
                ) : (
                  r.label
                )}
              </th>
              <td class="num">{count(r.value)}</td>
              <td class="bar-cell">
                <span class={`bar tone-${r.tone}`} style={{ width: `${Math.max(1, (r.value / max) * 100)}%` }} />
                <span class="visually-hidden">{total > 0 ? `${Math.round((r.value / total) * 100)} %` : ''}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {note ? <p class="hint">{note}</p> : null}
    </div>
  );
}

/** JSON, masked by the caller, pretty-printed. */
export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}
