import type { NginxSpec } from '@ngx/nginx-api';

/**
 * What each write of an Nginx found: for the resourceVersion a write left, the spec just before it, as the
 * informer's update events tell (they carry both sides). An audit event names the resourceVersion its write left
 * but not the spec it replaced, so this is where a change of another door gets its diff; likewise the spec of each
 * Nginx deleted. Holds the latest `capacity` of them, oldest forgotten first.
 */
export class SpecHistory {
  private readonly before = new Map<string, NginxSpec | undefined>();

  constructor(private readonly capacity = 20_000) {}

  /** Notes an update the informer saw. Resyncs (same resourceVersion) note nothing. */
  saw(previous: NginxLike, current: NginxLike): void {
    const uid = current.metadata?.uid;
    const version = current.metadata?.resourceVersion;
    if (!uid || !version || version === previous.metadata?.resourceVersion) return;
    this.remember(`${uid}@${version}`, previous.spec);
  }

  private remember(key: string, spec: NginxSpec | undefined): void {
    this.before.delete(key);
    this.before.set(key, spec);
    if (this.before.size > this.capacity) this.before.delete(this.before.keys().next().value!);
  }

  /** Notes an Nginx the informer saw deleted: a delete's answer (a Status) does not carry the spec it removed. */
  sawDeleted(object: NginxLike): void {
    const uid = object.metadata?.uid;
    if (uid) this.remember(`${uid}@deleted`, object.spec);
  }

  /** The spec of the Nginx `uid` when it was deleted; undefined when not seen. */
  deletedSpec(uid: string): NginxSpec | undefined {
    return this.before.get(`${uid}@deleted`);
  }

  /** The spec before the write that left `uid` at `resourceVersion`; undefined when not seen. */
  specBefore(uid: string, resourceVersion: string): NginxSpec | undefined {
    return this.before.get(`${uid}@${resourceVersion}`);
  }
}

interface NginxLike {
  metadata?: { uid?: string; resourceVersion?: string };
  spec?: NginxSpec;
}
