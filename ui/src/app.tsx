/**
 * The console's shell: connect to the API (and sign in when it asks for http_basic credentials),
 * then the header with its navigation and the view the URL's hash names.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiMinor, connect, signIn, signOut, signedIn } from './api';
import { ErrorNote } from './components';
import { useRoute } from './hooks';
import { ConductorsView } from './views/conductors';
import { EnrollView } from './views/enroll';
import { FleetView } from './views/fleet';
import { NodeView } from './views/node';

type Phase = { kind: 'connecting' } | { kind: 'login'; error?: Error } | { kind: 'ready' } | { kind: 'failed'; error: Error };

function Login({ error, onSubmit }: { error: Error | undefined; onSubmit: (user: string, password: string) => void }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  return (
    <main id="main" class="login">
      <h1>Sign in to Ironless</h1>
      <p>This API uses http_basic. Your password stays in this tab’s memory only: reloading the page asks again.</p>
      <ErrorNote error={error} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit(user, password);
          setPassword('');
        }}
      >
        <label>
          User name
          <input name="username" autocomplete="username" required value={user} onInput={(e) => setUser(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}

const NAV = [
  { href: '#/fleet', view: 'fleet', label: 'Fleet' },
  { href: '#/conductors', view: 'conductors', label: 'Conductors & upgrades' },
  { href: '#/enroll', view: 'enroll', label: 'Enroll a node' },
] as const;

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'connecting' });
  const route = useRoute();

  const start = () =>
    connect().then(
      (ok) => setPhase(ok ? { kind: 'ready' } : { kind: 'login' }),
      (error: Error) => setPhase({ kind: 'failed', error }),
    );
  useEffect(() => void start(), []);

  useEffect(() => {
    const title = route.view === 'node' ? route.ident : NAV.find((n) => n.view === route.view)?.label;
    document.title = `${title ?? 'Fleet'} · Ironless`;
  }, [route]);

  const login = (user: string, password: string) => {
    signIn(user, password);
    connect().then(
      (ok) => {
        if (!ok) signOut();
        setPhase(
          ok ? { kind: 'ready' } : { kind: 'login', error: new ApiError(401, { title: 'The user name or password is wrong', detail: '' }) },
        );
      },
      (error: Error) => setPhase({ kind: 'login', error }),
    );
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/fleet">
          Ironless
        </a>
        {phase.kind === 'ready' ? (
          <nav aria-label="Views">
            {NAV.map((n) => (
              <a key={n.href} href={n.href} aria-current={route.view === n.view ? 'page' : undefined}>
                {n.label}
              </a>
            ))}
          </nav>
        ) : null}
        <span class="meta">
          API 1.{apiMinor()}
          {signedIn() ? (
            <button
              type="button"
              class="quiet"
              onClick={() => {
                signOut();
                setPhase({ kind: 'login' });
              }}
            >
              Sign out
            </button>
          ) : null}
        </span>
      </header>
      {phase.kind === 'connecting' ? (
        <main id="main" class="page">
          <p role="status">Connecting to the API…</p>
        </main>
      ) : phase.kind === 'failed' ? (
        <main id="main" class="page">
          <h1>The API cannot be reached</h1>
          <ErrorNote error={phase.error} />
          <button type="button" onClick={() => void start()}>
            Try again
          </button>
        </main>
      ) : phase.kind === 'login' ? (
        <Login error={phase.error} onSubmit={login} />
      ) : route.view === 'node' ? (
        <NodeView ident={route.ident} />
      ) : route.view === 'conductors' ? (
        <ConductorsView />
      ) : route.view === 'enroll' ? (
        <EnrollView />
      ) : (
        <FleetView query={route.query} />
      )}
    </>
  );
}
