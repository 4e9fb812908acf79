import { Injectable } from '@nestjs/common';
import type { KubeObject } from '@ngx/kube-runtime';

/** An Event this process wrote, and when what it reports happened (to the millisecond). */
type Listener = (event: KubeObject, happenedAt: Date) => void;

/**
 * The Kubernetes Events this process wrote (its controller's Event recorder), as kube-apiserver answered each
 * write, told to whoever listens: the timeline keeps them from here instead of reading them back through its
 * Events watch. Listeners are called in order, synchronously; one that throws does not stop the others.
 */
@Injectable()
export class OwnEvents {
  private readonly listeners = new Set<Listener>();

  /** Calls `listener` with every Event written from now on; returns how to stop. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  written(event: KubeObject, happenedAt: Date): void {
    for (const listener of this.listeners)
      try {
        listener(event, happenedAt);
      } catch {
        // a listener's failure is its own; the recorder must not see it
      }
  }
}
