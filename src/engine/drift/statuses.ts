/**
 * A check against the stack's history: each drifted object's status, since, checks and episodes; the objects
 * that were drifted at the previous check and are in sync now (resolved); and the history with this check
 * recorded (the caller stores it, or not with --no-record).
 */
import type { DriftEntry } from '../plan/plan';
import type { FingerprintKey } from '../state/fingerprint';
import { fieldDigests, sameDrift } from './field-digest';
import { bounded, type Acknowledgement, type DriftHistory, type Episode } from './history';

/**
 * `new`: not drifted at the previous recorded check; `changed`: drifted then too, differently; `known`: the same
 * drift as then; `acknowledged`: a live acknowledgement covers exactly this drift.
 */
export type DriftStatus = 'new' | 'changed' | 'known' | 'acknowledged';

export interface AcknowledgementView extends Acknowledgement {
  /** Past its `until` at this check: it no longer covers the drift. */
  expired: boolean;
}

export interface ClassifiedDrift {
  entry: DriftEntry;
  status: DriftStatus;
  since: string;
  checks: number;
  episodes: number;
  acknowledgement: AcknowledgementView | null;
}

export interface ResolvedDrift {
  address: string;
  type: string;
  kind: string;
  since: string;
  resolved_at: string;
  checks: number;
  episodes: number;
}

export interface Classification {
  drifted: ClassifiedDrift[];
  resolved: ResolvedDrift[];
  /** The history with this check recorded in it. */
  next: DriftHistory;
}

export function classify(history: DriftHistory, drift: readonly DriftEntry[], key: FingerprintKey, now: Date): Classification {
  const at = now.toISOString();
  const open = new Map(history.episodes.filter((episode) => episode.resolved_at === undefined).map((episode) => [episode.address, episode] as const));
  const episodes = history.episodes.filter((episode) => episode.resolved_at !== undefined);
  const counts = { ...history.episode_counts };
  const acknowledgements = { ...history.acknowledgements };
  const drifted: ClassifiedDrift[] = [];
  for (const entry of drift) {
    const seen = { kind: entry.kind, fields: fieldDigests(entry, key) };
    const previous = open.get(entry.address);
    open.delete(entry.address);
    let status: DriftStatus;
    let episode: Episode;
    if (previous === undefined) {
      status = 'new';
      counts[entry.address] = (counts[entry.address] ?? 0) + 1;
      episode = { address: entry.address, type: entry.type, ...seen, first_seen: at, last_seen: at, checks: 1 };
    } else {
      status = sameDrift(previous, seen) ? 'known' : 'changed';
      episode = { ...previous, ...seen, last_seen: at, checks: previous.checks + 1 };
    }
    episodes.push(episode);
    let acknowledgement: AcknowledgementView | null = null;
    const ack = acknowledgements[entry.address];
    if (ack !== undefined && !sameDrift(ack, seen)) {
      // The object drifted further than what was acknowledged: the acknowledgement lapses, and it alerts again.
      delete acknowledgements[entry.address];
    } else if (ack !== undefined) {
      const expired = ack.until !== undefined && ack.until <= at;
      acknowledgement = { ...ack, expired };
      if (!expired) status = 'acknowledged';
    }
    drifted.push({ entry, status, since: episode.first_seen, checks: episode.checks, episodes: counts[entry.address], acknowledgement });
  }
  const resolved: ResolvedDrift[] = [];
  for (const episode of open.values()) {
    episodes.push({ ...episode, resolved_at: at });
    delete acknowledgements[episode.address];
    resolved.push({ address: episode.address, type: episode.type, kind: episode.kind, since: episode.first_seen, resolved_at: at, checks: episode.checks, episodes: counts[episode.address] ?? 1 });
  }
  resolved.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const unacknowledged = drifted.filter((object) => object.status !== 'acknowledged').length;
  const next = bounded({
    ...history,
    checks: [...history.checks, { at, drifted: drifted.length, unacknowledged }],
    episodes,
    episode_counts: counts,
    acknowledgements,
  });
  return { drifted, resolved, next };
}

/** Whether the objects alert under `--fail-on`: `new` alerts on new and changed drift, `any` on any not acknowledged. */
export function alerts(drifted: readonly { status: DriftStatus | null }[], failOn: 'new' | 'any'): boolean {
  return drifted.some((object) => (failOn === 'new' ? object.status === 'new' || object.status === 'changed' : object.status !== 'acknowledged'));
}
