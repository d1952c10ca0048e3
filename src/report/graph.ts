/**
 * The dependency graph of a stack as Graphviz DOT or a Mermaid flowchart. An edge goes from an object to the
 * one that needs it (the order apply creates them in; destroy runs the other way).
 */

export type GraphFormat = 'dot' | 'mermaid';
export const GRAPH_FORMATS: readonly GraphFormat[] = ['dot', 'mermaid'];

export interface GraphNode {
  readonly address: string;
  readonly type: string;
  readonly dependsOn: readonly string[];
  /** Shown after the type when given, e.g. a planned action (`create`). */
  readonly note?: string;
}

export function renderGraph(nodes: readonly GraphNode[], format: GraphFormat, title = 'secretform'): string {
  return format === 'dot' ? renderDot(nodes, title) : renderMermaid(nodes);
}

/** The edges between the given nodes only (a dependency outside them is left out), as `[from, to]` addresses. */
export function graphEdges(nodes: readonly GraphNode[]): Array<[string, string]> {
  const known = new Set(nodes.map((node) => node.address));
  return nodes.flatMap((node) => node.dependsOn.filter((dependency) => known.has(dependency)).map((dependency): [string, string] => [dependency, node.address]));
}

function label(node: GraphNode): string[] {
  return [node.address, node.note ? `${node.type} (${node.note})` : node.type];
}

export function renderDot(nodes: readonly GraphNode[], title: string): string {
  const quote = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
  const lines = [`digraph ${quote(title)} {`, '  rankdir = "LR";', '  node [shape = "box"];'];
  for (const node of nodes) lines.push(`  ${quote(node.address)} [label = ${quote(label(node).join('\n'))}];`);
  for (const [from, to] of graphEdges(nodes)) lines.push(`  ${quote(from)} -> ${quote(to)};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Colours for a Mermaid flowchart: a class per node and the style of each class (`fill:#...,stroke:#...`). */
export interface MermaidClasses {
  readonly classOf: (node: GraphNode) => string;
  readonly styles: Readonly<Record<string, string>>;
}

/** Mermaid ids are generated (`n0`, `n1`, ...): addresses hold characters Mermaid does not allow in ids. */
export function renderMermaid(nodes: readonly GraphNode[], classes?: MermaidClasses): string {
  const ids = new Map(nodes.map((node, index) => [node.address, `n${index}`]));
  // Every character that could end the label, the line or the markdown fence around the chart (a line break, a
  // backtick) as Mermaid's entity code, and control characters as that too.
  // eslint-disable-next-line no-control-regex
  const escape = (text: string) => text.replace(/[&"<>#`\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => `#${char.charCodeAt(0)};`);
  const lines = ['flowchart LR'];
  for (const node of nodes) lines.push(`  ${ids.get(node.address)}["${label(node).map(escape).join('<br/>')}"]`);
  for (const [from, to] of graphEdges(nodes)) lines.push(`  ${ids.get(from)} --> ${ids.get(to)}`);
  if (classes !== undefined) {
    const members = new Map<string, string[]>();
    for (const node of nodes) {
      const name = classes.classOf(node);
      members.set(name, [...(members.get(name) ?? []), ids.get(node.address)!]);
    }
    for (const [name, style] of Object.entries(classes.styles)) {
      if (members.has(name)) lines.push(`  classDef ${name} ${style}`);
    }
    for (const [name, memberIds] of members) lines.push(`  class ${memberIds.join(',')} ${name}`);
  }
  return `${lines.join('\n')}\n`;
}
