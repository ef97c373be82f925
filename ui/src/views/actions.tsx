/**
 * A node's actions: the provision verbs its state expects as buttons, every other verb behind
 * "More actions" (the API has the last word: a stale page or another Ironic version may differ),
 * power, maintenance and boot device. Each opens a confirmation naming what will happen; the
 * API's answer is shown in words, in the dialog when it refuses.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ActionId, type ActionInput, InputError, LABELS, POWER_TARGETS, describeAction, runAction } from '../actions';
import { ApiError, get, request } from '../api';
import { Dialog, ErrorNote } from '../components';
import { expectedVerbs, type ProvisionVerb } from '../states';

type NodeLike = Readonly<Record<string, unknown>>;

const ALL_VERBS: readonly ProvisionVerb[] = ['manage', 'provide', 'inspect', 'clean', 'deploy', 'undeploy', 'service', 'abort'];

const CONFIRM: Partial<Record<ActionId, string>> = { undeploy: 'Undeploy and erase', deploy: 'Deploy', abort: 'Abort' };

function ActionForm({
  id,
  node,
  input,
  set,
}: {
  id: ActionId;
  node: NodeLike;
  input: ActionInput;
  set: (i: Partial<ActionInput>) => void;
}) {
  const [devices, setDevices] = useState<string[]>([]);
  useEffect(() => {
    if (id !== 'boot-device') return;
    get<{ supported_boot_devices: string[] }>(`v1/nodes/${String(node.uuid)}/management/boot_device/supported`).then(
      (r) => {
        setDevices(r.supported_boot_devices);
        if (!input.bootDevice && r.supported_boot_devices[0]) set({ bootDevice: r.supported_boot_devices[0] });
      },
      () => setDevices(['pxe', 'disk', 'cdrom', 'bios', 'safe']),
    );
  }, [id]);
  switch (id) {
    case 'deploy':
      return (
        <>
          <label>
            Image URL (instance_info/image_source)
            <input required type="text" value={input.imageSource ?? ''} onInput={(e) => set({ imageSource: e.currentTarget.value })} />
          </label>
          <label>
            Image checksum (MD5 or SHA-256; optional)
            <input type="text" value={input.imageChecksum ?? ''} onInput={(e) => set({ imageChecksum: e.currentTarget.value })} />
          </label>
          <label>
            Config drive (optional): JSON with meta_data, user_data, network_data — or a URL
            <textarea rows={4} value={input.configDrive ?? ''} onInput={(e) => set({ configDrive: e.currentTarget.value })} />
          </label>
        </>
      );
    case 'clean':
    case 'service':
      return (
        <label>
          {id === 'clean' ? 'Clean steps' : 'Service steps'} (JSON list, run in this order)
          <textarea rows={5} class="mono" value={input.steps ?? ''} onInput={(e) => set({ steps: e.currentTarget.value })} />
        </label>
      );
    case 'maintenance-on':
      return (
        <label>
          Reason (shown to other operators)
          <input type="text" value={input.reason ?? ''} onInput={(e) => set({ reason: e.currentTarget.value })} />
        </label>
      );
    case 'power':
      return (
        <fieldset>
          <legend>Power action</legend>
          {POWER_TARGETS.map((p) => (
            <label key={p.target} class="inline">
              <input type="radio" name="power" checked={input.powerTarget === p.target} onChange={() => set({ powerTarget: p.target })} />
              {p.label}
            </label>
          ))}
        </fieldset>
      );
    case 'boot-device':
      return (
        <>
          <label>
            Boot device
            <select value={input.bootDevice ?? ''} onChange={(e) => set({ bootDevice: e.currentTarget.value })}>
              {devices.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
          <label class="inline">
            <input type="checkbox" checked={input.persistent === true} onChange={(e) => set({ persistent: e.currentTarget.checked })} />
            Persistent (every boot, not only the next)
          </label>
        </>
      );
    default:
      return null;
  }
}

function initialInput(id: ActionId, node: NodeLike): ActionInput {
  const info = (node.instance_info ?? {}) as Record<string, unknown>;
  if (id === 'deploy')
    return {
      imageSource: typeof info.image_source === 'string' ? info.image_source : '',
      imageChecksum: typeof info.image_checksum === 'string' ? info.image_checksum : '',
    };
  if (id === 'clean') return { steps: '[{"interface": "deploy", "step": "erase_devices_metadata"}]' };
  if (id === 'service') return { steps: '[]' };
  if (id === 'power') return { powerTarget: node.power_state === 'power on' ? 'power off' : 'power on' };
  return {};
}

function Confirm({ id, node, onDone, onClose }: { id: ActionId; node: NodeLike; onDone: (message: string) => void; onClose: () => void }) {
  const [input, setInput] = useState<ActionInput>(() => initialInput(id, node));
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const name = String(node.name ?? node.uuid);
  const expected = ALL_VERBS.includes(id as ProvisionVerb) && !expectedVerbs(node.provision_state as string).includes(id as ProvisionVerb);
  return (
    <Dialog title={`${LABELS[id]} ${name}?`} onClose={onClose}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          runAction(id, node, input, (method, path, body) => request(method, path, body)).then(
            () => onDone(`${LABELS[id]} ${name}: accepted by the API.`),
            (err: Error) => {
              setError(err);
              setBusy(false);
            },
          );
        }}
      >
        <p class="what">{describeAction(id, node, input)}</p>
        {expected ? (
          <p class="note warn">
            Ironic’s state machine does not take “{id}” from {String(node.provision_state)}: the API will most likely refuse it.
          </p>
        ) : null}
        <ActionForm id={id} node={node} input={input} set={(i) => setInput((x) => ({ ...x, ...i }))} />
        {error instanceof ApiError ? (
          <ErrorNote error={error} prefix={`${LABELS[id]} refused`} />
        ) : error ? (
          <p class="note error" role="alert">
            {error instanceof InputError ? error.message : `${LABELS[id]} failed: ${error.message}`}
          </p>
        ) : null}
        <div class="dialog-buttons">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class={id === 'undeploy' || id === 'abort' ? 'danger' : 'primary'} disabled={busy}>
            {busy ? 'Asking the API…' : (CONFIRM[id] ?? LABELS[id])}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function Actions({ node, onChanged }: { node: NodeLike; onChanged: () => void }) {
  const [open, setOpen] = useState<ActionId | undefined>();
  const [message, setMessage] = useState('');
  const expected = expectedVerbs(node.provision_state as string);
  const others = ALL_VERBS.filter((v) => !expected.includes(v));
  const button = (id: ActionId, primary = false) => (
    <button key={id} type="button" class={primary ? 'primary' : undefined} onClick={() => setOpen(id)}>
      {LABELS[id]}
    </button>
  );
  return (
    <div class="actions">
      <div class="action-bar" role="group" aria-label="Actions">
        {expected.map((v) => button(v, true))}
        {button('power')}
        {node.maintenance ? button('maintenance-off') : button('maintenance-on')}
        {button('boot-device')}
        <details class="more">
          <summary>More actions</summary>
          <div class="more-list">
            <p class="hint">Not expected from {String(node.provision_state)}; the API decides.</p>
            {others.map((v) => button(v))}
          </div>
        </details>
      </div>
      <p class="hint" role="status">
        {message}
      </p>
      {open ? (
        <Confirm
          id={open}
          node={node}
          onClose={() => setOpen(undefined)}
          onDone={(m) => {
            setOpen(undefined);
            setMessage(m);
            onChanged();
          }}
        />
      ) : null}
    </div>
  );
}
