import type { Nginx } from '@ngx/nginx-api';
import { budgetViewOf } from '@/features/detail/owned-view';

/** The PodDisruptionBudget the controller keeps (only when spec.disruptionBudget is set): its rule and what
 * it allows right now, live from the status. */
export function BudgetPanel({ nginx }: { nginx: Nginx }) {
  const budget = budgetViewOf(nginx);
  return (
    <section className="panel" aria-labelledby="budget-title" data-testid="disruption-budget">
      <div className="panel-head">
        <h2 id="budget-title">Disruption budget</h2>
      </div>
      <div className="panel-body">
        {budget ? (
          <>
            <dl className="props">
              <dt>Rule</dt>
              <dd className="mono">{budget.rule}</dd>
              <dt>Disruptions allowed</dt>
              <dd data-testid="disruptions-allowed" data-count={budget.disruptionsAllowed ?? ''}>
                {budget.disruptionsAllowed ?? '—'}
              </dd>
              <dt>Healthy pods</dt>
              <dd>
                {budget.currentHealthy ?? '—'}{' '}
                <span className="muted small">(at least {budget.desiredHealthy ?? '—'} must stay)</span>
              </dd>
            </dl>
            <p className="muted small budget-sentence" aria-live="polite">
              {budget.sentence}
            </p>
          </>
        ) : (
          <p className="muted">
            No disruption budget: <code>spec.disruptionBudget</code> is not set, so voluntary evictions (a
            node drain) are not limited.
          </p>
        )}
      </div>
    </section>
  );
}
