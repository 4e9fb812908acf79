import { canonicalJson } from './json-equal.js';
import type { NginxPodTemplate } from './template-fields.js';

/** Whether two templates run the same pods: equal at every depth, whatever their keys' order. */
export function sameTemplate(a: NginxPodTemplate, b: NginxPodTemplate): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * A short, stable name for a text: 14 lowercase base-36 characters from two 32-bit hashes of its UTF-16 code
 * units (FNV-1a and a multiply-xor), 64 bits in all. Not cryptographic: only stable and well spread, and fast
 * enough for a 256 KiB config on every sync.
 */
export function shortHash(text: string): string {
  let fnv = 0x811c9dc5;
  let mix = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ unit, 0x01000193);
    mix = Math.imul(mix ^ unit, 0x5bd1e995) ^ (mix >>> 15);
  }
  const part = (value: number) => (value >>> 0).toString(36).padStart(7, '0');
  return part(fnv) + part(mix);
}

/**
 * The revision of a pod template: a hash of its canonical JSON. Pods carry it in `mycompany.com/revision`, and
 * two specs with the same template (whatever else differs) are the same revision.
 */
export function revisionOf(template: NginxPodTemplate): string {
  return shortHash(canonicalJson(template));
}

/**
 * The name of the apps/v1 ControllerRevision that records `revision` (a hash) of the Nginx `nginxName`. It holds
 * `{ template: NginxPodTemplate }` in `data`, its number in `revision`, the labels of the Nginx's pods plus
 * `mycompany.com/revision`, and the Nginx as its controller.
 */
export function controllerRevisionName(nginxName: string, revision: string): string {
  return `${nginxName}-${revision}`;
}

/** What a ControllerRevision of an Nginx holds in `data`. */
export interface NginxRevisionData {
  template: NginxPodTemplate;
}
