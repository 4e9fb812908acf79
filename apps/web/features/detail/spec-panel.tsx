import { DEFAULT_IMAGE, type Nginx } from '@ngx/nginx-api';
import { ImageEditor } from '@/features/detail/image-editor';
import { ScaleControl } from '@/features/detail/scale-control';
import type { ApiClient } from '@/lib/api/api-client';
import { desiredOf } from '@/lib/nginx/nginx-view';

/** The spec's replicas and image: editable in place for someone who may write, plain values otherwise. */
export function SpecPanel({ nginx, api, writable }: { nginx: Nginx; api: ApiClient; writable: boolean }) {
  const { namespace, name } = nginx.metadata as { namespace: string; name: string };
  return (
    <section className="panel" aria-labelledby="spec-title">
      <div className="panel-head">
        <h2 id="spec-title">Spec</h2>
      </div>
      <div className="panel-body">
        <dl className="props">
          <dt>Replicas</dt>
          <dd data-testid="spec-replicas">
            {writable ? (
              <ScaleControl api={api} namespace={namespace} name={name} replicas={desiredOf(nginx)} />
            ) : (
              desiredOf(nginx)
            )}
          </dd>
          <dt>Image</dt>
          <dd data-testid="spec-image">
            {writable ? (
              <ImageEditor api={api} namespace={namespace} name={name} image={nginx.spec.image} />
            ) : (
              <code>{nginx.spec.image ?? DEFAULT_IMAGE}</code>
            )}
          </dd>
        </dl>
      </div>
    </section>
  );
}
