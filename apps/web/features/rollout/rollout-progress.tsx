import { Badge, type Tone } from '@/components/ui/badge';
import { ROLLOUT_STATE_LABELS, type RolloutState, type RolloutView } from '@/features/rollout/rollout-view';

const TONES: Record<RolloutState, Tone> = {
  progressing: 'info',
  complete: 'success',
  paused: 'warning',
  'deadline-exceeded': 'danger',
  'invalid-config': 'danger',
  aborted: 'danger',
  'bluegreen-aborted': 'danger',
  'rolled-back': 'danger',
  unknown: 'neutral',
};

const percent = (part: number, whole: number) => (whole > 0 ? Math.min(100, (part / whole) * 100) : 0);

/** The rollout's state as a badge (`data-state` carries it for machines). */
export function RolloutStateBadge({ view }: { view: RolloutView }) {
  return (
    <span data-testid="rollout-state" data-state={view.state}>
      <Badge tone={TONES[view.state]} title={view.message}>
        {ROLLOUT_STATE_LABELS[view.state]}
      </Badge>
    </span>
  );
}

/**
 * Updated, available and desired pods as numbers and a two-layer bar: available pods behind, updated pods in
 * front (the numbers say it all; the bar is for the eye).
 */
export function RolloutProgress({ view }: { view: RolloutView }) {
  const { updated, available, desired } = view;
  return (
    <div
      className="rollout-progress"
      data-testid="rollout-progress"
      data-updated={updated}
      data-available={available}
      data-desired={desired}
    >
      <div
        className="rollout-bar"
        role="progressbar"
        aria-label="Pods updated to the new revision"
        aria-valuemin={0}
        aria-valuemax={desired}
        aria-valuenow={Math.min(updated, desired)}
        aria-valuetext={`${updated} of ${desired} updated, ${available} available`}
      >
        <span className="rollout-bar-available" style={{ width: `${percent(available, desired)}%` }} />
        <span className="rollout-bar-updated" style={{ width: `${percent(updated, desired)}%` }} />
      </div>
      <p className="rollout-counts small">
        <span>
          <strong>{updated}</strong> updated
        </span>
        <span>
          <strong>{available}</strong> available
        </span>
        <span>
          <strong>{desired}</strong> desired
        </span>
        {view.oldPods > 0 && <span className="muted">{view.oldPods} on older revisions</span>}
      </p>
    </div>
  );
}
