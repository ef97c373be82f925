/** Small hooks the views share: polling the API, a ticking clock, the hash route. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type Route, formatRoute, parseRoute } from './route';

export interface Polled<T> {
  readonly data: T | undefined;
  readonly error: Error | undefined;
  readonly loading: boolean;
  /** Load again now (after an action). */
  readonly reload: () => void;
}

/**
 * `load()` now and then every `everyMs(data)` ms (undefined: once) while the view is shown and the
 * tab visible; `deps` restart it. A slow answer never overlaps the next request.
 */
export function usePoll<T>(load: () => Promise<T>, everyMs: (data: T | undefined) => number | undefined, deps: unknown[]): Polled<T> {
  const [state, setState] = useState<{ data: T | undefined; error: Error | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [nonce, setNonce] = useState(0);
  const latest = useRef<T | undefined>(undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (document.hidden) {
        timer = setTimeout(() => void run(), 1000);
        return;
      }
      try {
        const data = await load();
        if (stopped) return;
        latest.current = data;
        setState({ data, error: undefined, loading: false });
      } catch (err) {
        if (stopped) return;
        setState((s) => ({ data: s.data, error: err as Error, loading: false }));
      }
      const every = everyMs(latest.current);
      if (every !== undefined && !stopped) timer = setTimeout(() => void run(), every);
    };
    setState((s) => ({ ...s, loading: true }));
    void run();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, nonce]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { ...state, reload };
}

/** The current time, updated every `everyMs`. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function navigate(route: Route): void {
  location.hash = formatRoute(route);
}
