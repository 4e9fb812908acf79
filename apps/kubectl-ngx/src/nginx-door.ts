import type { KubeClient } from '@ngx/kube-runtime';
import type { Nginx, PodWhy, RevisionItem, TimelineItem } from '@ngx/nginx-api';

/** A revision as `history` and `undo` read it, through either door. */
export type HistoryItem = Pick<
  RevisionItem,
  'revision' | 'hash' | 'template' | 'created' | 'current' | 'change'
>;

/** An Nginx's revisions, with the resourceVersion of the Nginx they were read with. */
export interface History {
  nginx: Nginx;
  items: HistoryItem[];
}

/** A page of timeline entries newest first, and the version a follow starts after. */
export interface TimelinePage {
  items: TimelineItem[];
  resourceVersion: string;
}

/**
 * The requests whose way differs by server: against kube-apiserver alone the plugin decides them itself from the
 * Nginx as read, with @ngx/nginx-api's plans (the annotation, the rollback's patch), and writes them as the user;
 * against the control plane it calls the control plane's endpoints, which decide with the same plans and record
 * who asked. Either way the Nginx ends up the same. Everything else (get, watch, pause, set image, restart) is a
 * plain read or merge patch of `/apis/mycompany.com/v1`, which both servers serve.
 */
export interface NginxDoor {
  promote(namespace: string, name: string, full: boolean): Promise<Nginx>;
  abort(namespace: string, name: string): Promise<Nginx>;
  history(namespace: string, name: string): Promise<History>;
  /** Writes revision `revision`'s template back, conditioned on the resourceVersion `history` read. */
  rollback(namespace: string, name: string, revision: number, read: Nginx): Promise<Nginx>;
  /** Entries at or after `since` (all pages), newest first; only the control plane keeps them. */
  timeline(namespace: string, name: string, since: Date | undefined): Promise<TimelinePage>;
  /** Calls `seen` with each entry written after `from`, until `signal` fires. */
  followTimeline(
    namespace: string,
    name: string,
    from: string,
    seen: (item: TimelineItem) => void,
    signal: AbortSignal,
  ): Promise<void>;
  why(namespace: string, name: string, pod: string): Promise<PodWhy>;
}

export type DoorFactory = (client: KubeClient) => NginxDoor;
