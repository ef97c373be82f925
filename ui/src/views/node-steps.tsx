/** A node's deploy, clean or service run, step by step, live while it runs. */
import { Badge } from '../components';
import { ago, clock, duration } from '../format';
import { type StepRun, type StepStatus } from '../steps';
import type { Tone } from '../states';

const STATUS_TONE: Readonly<Record<StepStatus, Tone>> = {
  done: 'ok',
  running: 'busy',
  failed: 'failed',
  pending: 'idle',
  skipped: 'off',
};

const FLOW_LABEL = { deploy: 'Deploy', clean: 'Cleaning', service: 'Servicing' } as const;

export function StepsPanel({ run, node, now }: { run: StepRun | undefined; node: Readonly<Record<string, unknown>>; now: number }) {
  const info = (node.driver_internal_info ?? {}) as Record<string, unknown>;
  const heartbeat = typeof info.agent_last_heartbeat === 'string' ? info.agent_last_heartbeat : undefined;
  if (!run) {
    return (
      <section aria-labelledby="steps-title" class="panel">
        <h2 id="steps-title">Steps</h2>
        <p class="muted">No deploy, clean or service run is recorded for this node yet.</p>
      </section>
    );
  }
  const doneCount = run.rows.filter((r) => r.status === 'done').length;
  const summary =
    run.outcome === 'running'
      ? `running, step ${Math.min(doneCount + 1, run.rows.length)} of ${run.rows.length}`
      : run.outcome === 'failed'
        ? 'failed'
        : 'finished';
  return (
    <section aria-labelledby="steps-title" class="panel">
      <div class="section-head">
        <h2 id="steps-title">
          {run.source === 'live' ? `${FLOW_LABEL[run.flow]} steps` : `Last ${FLOW_LABEL[run.flow].toLowerCase()} run`}
        </h2>
        <p class="hint" aria-live="polite">
          <Badge tone={run.outcome === 'running' ? 'busy' : run.outcome === 'failed' ? 'failed' : 'ok'}>{summary}</Badge>
        </p>
        <p class="hint">
          {heartbeat ? (
            <>
              Agent: last heartbeat <strong>{ago(heartbeat, now)}</strong>
              {typeof info.agent_version === 'string' ? ` · version ${info.agent_version}` : ''}
            </>
          ) : run.outcome === 'running' ? (
            'No agent heartbeat yet'
          ) : null}
        </p>
      </div>
      <table class="steps">
        <caption class="visually-hidden">{FLOW_LABEL[run.flow]} steps in the order they run</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Step</th>
            <th scope="col">Priority</th>
            <th scope="col">Runs</th>
            <th scope="col">Status</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {run.rows.map((r, i) => (
            <tr key={`${r.interface}.${r.step}.${i}`} class={`step-${r.status}`} aria-current={r.status === 'running' ? 'step' : undefined}>
              <td class="num">{i + 1}</td>
              <td>
                <span class="mono">
                  {r.interface}.{r.step}
                </span>
                {Object.keys(r.args).length > 0 ? <div class="sub mono">{JSON.stringify(r.args)}</div> : null}
              </td>
              <td class="num">{r.priority}</td>
              <td>{r.inband === undefined ? '—' : r.inband ? 'in-band (agent)' : 'out-of-band (conductor)'}</td>
              <td>
                <Badge tone={STATUS_TONE[r.status]}>{r.status}</Badge>
              </td>
              <td title={r.startedAt}>{r.startedAt ? clock(r.startedAt) : '—'}</td>
              <td class="num">{r.durationMs === undefined ? '—' : duration(r.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {run.failure ? (
        <p class="note error">
          <strong>Failed at {clock(run.failure.created_at)}:</strong> {run.failure.event}
        </p>
      ) : null}
    </section>
  );
}
