import type { Nginx } from '@ngx/nginx-api';
import { Badge } from '@/components/ui/badge';
import { ingressViewOf, serviceViewOf } from '@/features/detail/owned-view';

/**
 * The Service the controller keeps for the Nginx (only when spec.service is set): type, name, cluster IP, ports
 * and how many endpoints are ready, live from the status.
 */
export function ServicePanel({ nginx }: { nginx: Nginx }) {
  const service = serviceViewOf(nginx);
  const ingress = ingressViewOf(nginx);
  return (
    <section className="panel" aria-labelledby="service-title" data-testid="service-panel">
      <div className="panel-head">
        <h2 id="service-title">Service</h2>
        {service && <Badge tone="neutral">{service.type}</Badge>}
      </div>
      <div className="panel-body">
        {service ? (
          <dl className="props">
            <dt>Name</dt>
            <dd className="mono">{service.name ?? nginx.metadata.name}</dd>
            <dt>Type</dt>
            <dd data-testid="service-type">{service.type}</dd>
            <dt>Cluster IP</dt>
            <dd className="mono" data-testid="service-cluster-ip">
              {service.clusterIP ?? <span className="muted">not assigned yet</span>}
            </dd>
            <dt>Ports</dt>
            <dd className="mono" data-testid="service-ports">
              {service.portsText}
            </dd>
            <dt>Ready endpoints</dt>
            <dd>
              <span data-testid="service-ready-endpoints" data-count={service.readyEndpoints ?? ''}>
                {service.readyEndpoints ?? '—'}
              </span>{' '}
              <span className="muted small">of {nginx.spec.replicas} desired pods</span>
            </dd>
            {nginx.spec.tls && (
              <>
                <dt>TLS Secret</dt>
                <dd className="mono" data-testid="service-tls-secret">
                  {nginx.spec.tls.secretName}
                </dd>
              </>
            )}
            {ingress && (
              <>
                <dt>Ingress</dt>
                <dd data-testid="service-ingress">
                  <span className="mono">{ingress.ruleText}</span>
                  {ingress.className && <span className="muted small"> class {ingress.className}</span>}
                  {ingress.tlsSecret && <span className="muted small"> TLS {ingress.tlsSecret}</span>}
                  {ingress.addresses.length > 0 && (
                    <span className="mono small"> at {ingress.addresses.join(', ')}</span>
                  )}
                </dd>
              </>
            )}
          </dl>
        ) : (
          <p className="muted">
            No Service: <code>spec.service</code> is not set, so the controller keeps none.
          </p>
        )}
      </div>
    </section>
  );
}
