import { HealthPanel } from '../components/health-panel';

export default function HomePage() {
  return (
    <>
      <p className="muted">
        Run N nginx pods by declaring an <code>Nginx</code> object; this control plane reconciles, shows and
        audits them.
      </p>
      <HealthPanel />
    </>
  );
}
