/**
 * What a CPU profile says in one line: its busy time and the functions that took most of it (self time), for the
 * bench to say what the dev server's side of a run costs.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's time goes: a package (`bcryptjs`), else the file, else what V8 calls it (`(garbage collector)`). */
function placeOf(frame: ProfileNode['callFrame']): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url);
  if (inPackage) return inPackage[1];
  if (frame.url === '') return frame.functionName;
  return frame.url.replace(/^.*\/(src|dist)\//, '$1/').replace(/^node:.*/, 'node internals');
}

export interface ProfileSummary {
  busyMs: number;
  /** [place, ms], largest first. */
  top: Array<[string, number]>;
}

export function summariseProfile(file: string, count = 5): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPlace = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') return;
    const micros = profile.timeDeltas[index + 1] ?? 0;
    busyUs += micros;
    const place = placeOf(frame);
    byPlace.set(place, (byPlace.get(place) ?? 0) + micros);
  });
  const top = [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, count).map(([place, micros]): [string, number] => [place, micros / 1000]);
  return { busyMs: busyUs / 1000, top };
}

export function summaryText(summary: ProfileSummary): string {
  const share = (ms: number) => `${Math.round((100 * ms) / Math.max(summary.busyMs, 1))}%`;
  return `${(summary.busyMs / 1000).toFixed(2)} s busy in the profile; ${summary.top.map(([place, ms]) => `${place} ${share(ms)}`).join(', ')}`;
}
