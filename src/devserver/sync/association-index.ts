import type { Association, Destination } from './model';

interface Link {
  destination: Destination;
  association: Association;
  /** When the association was made, relative to all others. */
  order: number;
}

/**
 * The associations of each KV secret (by mount and secret name), so that a KV write and the secret's
 * association lookup find them without reading every association of every destination. The syncer and the
 * destination handlers keep it in step: `addDestination` when a destination is created, `add`/`remove` with
 * each change of a destination's `associations`, `removeDestination` when a destination goes.
 */
export class AssociationIndex {
  private readonly bySecret = new Map<string, Set<Link>>();
  private readonly links = new Map<Association, Link>();
  /** When each destination was created: `state.destinations` lists them in this order. */
  private readonly destinationOrder = new Map<Destination, number>();
  private nextOrder = 0;

  addDestination(destination: Destination): void {
    this.destinationOrder.set(destination, this.nextOrder++);
  }

  removeDestination(destination: Destination): void {
    for (const association of destination.associations.values()) this.remove(association);
    this.destinationOrder.delete(destination);
  }

  add(destination: Destination, association: Association): void {
    const link = { destination, association, order: this.nextOrder++ };
    this.links.set(association, link);
    const key = secretKey(association.mount, association.secretName);
    let links = this.bySecret.get(key);
    if (!links) this.bySecret.set(key, (links = new Set<Link>()));
    links.add(link);
  }

  remove(association: Association): void {
    const link = this.links.get(association);
    if (!link) return;
    this.links.delete(association);
    const key = secretKey(association.mount, association.secretName);
    const links = this.bySecret.get(key)!;
    links.delete(link);
    if (links.size === 0) this.bySecret.delete(key);
  }

  /**
   * The secret's associations with their destinations, in the order of a walk over every destination and
   * its associations (destinations by creation, then associations by creation).
   */
  of(mount: string, secretName: string): Array<{ destination: Destination; association: Association }> {
    const links = [...(this.bySecret.get(secretKey(mount, secretName)) ?? [])];
    const destinationOrder = (link: Link): number => this.destinationOrder.get(link.destination)!;
    links.sort((a, b) => destinationOrder(a) - destinationOrder(b) || a.order - b.order);
    return links.map(({ destination, association }) => ({ destination, association }));
  }
}

const secretKey = (mount: string, secretName: string): string => JSON.stringify([mount, secretName]);
