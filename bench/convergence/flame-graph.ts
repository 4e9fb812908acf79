// A V8 CPU profile drawn as a static flame graph SVG (callers below, callees above, width = CPU time), and the
// costs it is made of. Written here because the tools that draw one from a .cpuprofile either need a browser
// (DevTools, speedscope, 0x's HTML) or folded stacks and a Perl or Rust toolchain; an SVG in the repository can
// be read on GitHub as it is.
import type { CpuProfile } from './cpu-profile.js';

interface Frame {
  name: string;
  /** Where the function is: a package, a file of ours, or node's internals. */
  where: string;
  ms: number;
  children: Map<string, Frame>;
}

/** Node's idle time is not CPU; everything else (our code, libraries, GC, "(program)") is. */
const NOT_CPU = new Set(['(idle)', '(root)']);

/** "@nestjs/core", "apps/api/src/controller/reconciler.ts" → shortest readable origin of a script URL. */
export function origin(url: string): string {
  if (!url) return 'V8';
  if (url.startsWith('wasm://')) return 'WebAssembly';
  if (url.startsWith('node:')) return 'node';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  // Prisma's generated client lives in our tree but is a library's code.
  if (/\/apps\/[^/]+\/(?:dist\/)?generated\/prisma/.test(url)) return 'prisma (generated client)';
  const ours = /\/((?:apps|libs)\/.*)$/.exec(url);
  return ours ? ours[1]!.replace('/dist/', '/').replace(/\.js$/, '.ts') : url.replace(/^file:\/\//, '');
}

const label = (node: CpuProfile['nodes'][number]) => node.callFrame.functionName || '(anonymous)';

/** Sample durations attributed to their profile nodes, as a call tree merged by function and origin. */
export function callTree(profile: CpuProfile): Frame {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    selfMs.set(profile.samples[i]!, (selfMs.get(profile.samples[i]!) ?? 0) + ms);
  }
  const build = (id: number, into: Frame) => {
    const node = byId.get(id)!;
    let frame = into;
    if (!NOT_CPU.has(label(node))) {
      const where = origin(node.callFrame.url);
      const key = `${label(node)}\u0000${where}`;
      frame = into.children.get(key) ?? { name: label(node), where, ms: 0, children: new Map() };
      into.children.set(key, frame);
      frame.ms += selfMs.get(id) ?? 0;
    }
    for (const child of node.children ?? []) build(child, frame);
  };
  const root: Frame = { name: 'all', where: '', ms: 0, children: new Map() };
  build(profile.nodes[0]!.id, root);
  const total = (frame: Frame): number => {
    for (const child of frame.children.values()) frame.ms += total(child);
    return frame.ms;
  };
  total(root);
  return root;
}

/** CPU time a function itself spent (not its callees), summed by function, biggest first. */
export function selfTimes(profile: CpuProfile): { name: string; where: string; ms: number }[] {
  const sums = new Map<string, { name: string; where: string; ms: number }>();
  const walk = (frame: Frame) => {
    const childMs = [...frame.children.values()].reduce((sum, c) => sum + c.ms, 0);
    const key = `${frame.name}\u0000${frame.where}`;
    const entry = sums.get(key) ?? { name: frame.name, where: frame.where, ms: 0 };
    entry.ms += frame.ms - childMs;
    sums.set(key, entry);
    for (const child of frame.children.values()) walk(child);
  };
  for (const child of callTree(profile).children.values()) walk(child);
  return [...sums.values()].sort((a, b) => b.ms - a.ms);
}

/** CPU time by origin (a package, a file of ours, node, V8's GC), self time only, biggest first. */
export function timeByOrigin(profile: CpuProfile): { where: string; ms: number }[] {
  const sums = new Map<string, number>();
  for (const { name, where, ms } of selfTimes(profile)) {
    const key = where === 'V8' && name.startsWith('(') ? name : where;
    sums.set(key, (sums.get(key) ?? 0) + ms);
  }
  return [...sums]
    .map(([where, ms]) => ({ where, ms }))
    .sort((a, b) => b.ms - a.ms || a.where.localeCompare(b.where));
}

/**
 * The CPU time (ms) spent in frames whose origin `matches` and in the library, node and V8 code they called — not
 * in code of ours they called back (a span wrapped around a reconcile does not own the reconcile), though frames
 * that match further up count again — with the profile's whole sampled time.
 */
export function inclusiveMs(
  profile: CpuProfile,
  matches: (where: string) => boolean,
): { ms: number; totalMs: number } {
  const root = callTree(profile);
  const ours = (where: string) => where.startsWith('apps/') || where.startsWith('libs/');
  const count = (frame: Frame, inside: boolean): number => {
    const counted = matches(frame.where) || (inside && !ours(frame.where));
    const children = [...frame.children.values()];
    const self = frame.ms - children.reduce((sum, c) => sum + c.ms, 0);
    return (counted ? self : 0) + children.reduce((sum, c) => sum + count(c, counted), 0);
  };
  return { ms: count(root, false), totalMs: root.ms };
}

/** inclusiveMs as a share (0–1) of the profile's sampled time. */
export function inclusiveShare(profile: CpuProfile, matches: (where: string) => boolean): number {
  const { ms, totalMs } = inclusiveMs(profile, matches);
  return totalMs > 0 ? ms / totalMs : 0;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function colour(frame: Frame): string {
  if (!frame.where) return '#b8b8b8';
  if (frame.name.startsWith('(garbage')) return '#d9534f';
  if (frame.where.startsWith('apps/') || frame.where.startsWith('libs/')) return '#f0a030';
  if (frame.where === 'node' || frame.where === 'V8') return '#b8b8b8';
  return '#e8d050';
}

/**
 * The flame graph of `profile` as an SVG document: `title` on top, frames narrower than 0.5 px left out, each
 * frame's name, origin and time in its tooltip. Orange is our code (apps/, libs/), yellow libraries, grey
 * Node.js and V8, red the garbage collector.
 */
export function flameGraphSvg(profile: CpuProfile, title: string, width = 1200): string {
  const root = callTree(profile);
  const rowHeight = 16;
  const top = 40;
  const scale = root.ms > 0 ? (width - 20) / root.ms : 0;
  const depthOf = (frame: Frame): number =>
    1 + Math.max(0, ...[...frame.children.values()].filter((c) => c.ms * scale >= 0.5).map(depthOf));
  const depth = depthOf(root);
  const height = top + depth * rowHeight + 10;
  const rects: string[] = [];
  const draw = (frame: Frame, x: number, level: number) => {
    const w = frame.ms * scale;
    if (w < 0.5) return;
    const y = height - 10 - (level + 1) * rowHeight;
    const share = root.ms > 0 ? ((frame.ms / root.ms) * 100).toFixed(1) : '0';
    const tip = `${frame.name}${frame.where ? ` (${frame.where})` : ''}: ${frame.ms.toFixed(0)} ms, ${share}%`;
    const chars = Math.floor((w - 6) / 6.5);
    const text =
      chars >= 3 ? (frame.name.length > chars ? `${frame.name.slice(0, chars - 2)}..` : frame.name) : '';
    rects.push(
      `<g><title>${escape(tip)}</title><rect x="${(10 + x).toFixed(1)}" y="${y}" width="${w.toFixed(1)}" ` +
        `height="${rowHeight - 1}" fill="${colour(frame)}" rx="2"/>` +
        (text ? `<text x="${(13 + x).toFixed(1)}" y="${y + 11.5}">${escape(text)}</text>` : '') +
        `</g>`,
    );
    let childX = x;
    for (const child of [...frame.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      draw(child, childX, level + 1);
      childX += child.ms * scale;
    }
  };
  draw(root, 0, 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="monospace" font-size="11">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="20" font-size="14">${escape(title)}</text>`,
    `<text x="10" y="34" fill="#555">${escape(`${root.ms.toFixed(0)} ms of CPU sampled; orange: our code, yellow: libraries, grey: Node.js/V8, red: GC. Hover a frame for its time.`)}</text>`,
    ...rects,
    `</svg>`,
    '',
  ].join('\n');
}
