'use client';

import { useCallback, useEffect, useState } from 'react';

interface Check {
  ok: boolean;
  detail: string;
}

interface Readiness {
  ready: boolean;
  checks: { kubernetes: Check & { server: string }; database: Check & { provider: string } };
}

type State =
  | { phase: 'loading' }
  | { phase: 'loaded'; live: boolean; readiness: Readiness }
  | { phase: 'error'; message: string };

async function fetchHealth(): Promise<{ live: boolean; readiness: Readiness }> {
  const [healthz, readyz] = await Promise.all([
    fetch('/healthz', { cache: 'no-store' }),
    fetch('/readyz', { cache: 'no-store' }),
  ]);
  // /readyz answers 503 with the same body shape when a dependency is down, so read it either way.
  return { live: healthz.ok, readiness: (await readyz.json()) as Readiness };
}

function Badge({ ok, children }: { ok: boolean | undefined; children: string }) {
  const tone = ok === undefined ? 'pending' : ok ? 'ok' : 'bad';
  return <span className={`badge ${tone}`}>{children}</span>;
}

/** The API's health as this browser sees it through the shared origin. */
export function HealthPanel() {
  const [state, setState] = useState<State>({ phase: 'loading' });

  const load = useCallback(() => {
    setState({ phase: 'loading' });
    fetchHealth()
      .then(({ live, readiness }) => setState({ phase: 'loaded', live, readiness }))
      .catch((error: unknown) =>
        setState({ phase: 'error', message: error instanceof Error ? error.message : String(error) }),
      );
  }, []);

  useEffect(load, [load]);

  return (
    <section className="panel" aria-labelledby="health-title" data-testid="health-panel">
      <h2 id="health-title">
        API health{' '}
        {state.phase === 'loaded' ? (
          <Badge ok={state.live && state.readiness.ready}>
            {state.readiness.ready ? 'ready' : 'not ready'}
          </Badge>
        ) : state.phase === 'error' ? (
          <Badge ok={false}>unreachable</Badge>
        ) : (
          <Badge ok={undefined}>checking</Badge>
        )}
      </h2>
      {state.phase === 'error' && <p>The API could not be reached: {state.message}</p>}
      {state.phase === 'loaded' && (
        <ul className="checks">
          <li data-testid="check-kubernetes">
            <Badge ok={state.readiness.checks.kubernetes.ok}>kubernetes</Badge>
            <span>
              {state.readiness.checks.kubernetes.detail}{' '}
              <span className="muted">({state.readiness.checks.kubernetes.server})</span>
            </span>
          </li>
          <li data-testid="check-database">
            <Badge ok={state.readiness.checks.database.ok}>database</Badge>
            <span>
              {state.readiness.checks.database.detail}{' '}
              <span className="muted">({state.readiness.checks.database.provider})</span>
            </span>
          </li>
        </ul>
      )}
      <p>
        <button type="button" onClick={load} disabled={state.phase === 'loading'}>
          Check again
        </button>
      </p>
    </section>
  );
}
