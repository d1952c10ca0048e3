// The floor of synth (issue 35): a cdktf app that writes the same `cdk.tf.json` bytes as the bench app with
// secretform's constructs, making per object only what cdktf needs for them: a plain TerraformResource per
// carrier (under plain Constructs on the same paths, so the logical ids and element metadata are the same) and
// the stack's bridge step, every value precomputed (read from the constructs' output, BENCH_FLOOR_REF). What it
// costs above plain cdktf is cdktf's own cost of our output format; what the constructs cost above it is ours.
// Bench only (bench/synth-floor.ts runs it); never shipped.
//
// BENCH_FLOOR_MODE:
// - `minimal`: the elements carry no override; the values are put into the configuration cdktf built, before it
//   writes it (the way the constructs defer their inert values): tree, element metadata, cdktf's conversion and
//   resolution of what is left, its JSON writer of the whole file.
// - `overrides`: every value set with `addOverride`, in the constructs' order (cdktf's public way: its merging,
//   resolution and per-type override-key lists).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.env.BENCH_ROOT ?? join(__dirname, '..');
/* eslint-disable @typescript-eslint/no-require-imports */
const cdktf = require(join(root, 'node_modules', 'cdktf')) as typeof import('cdktf');
const { Construct } = require(join(root, 'node_modules', 'constructs')) as typeof import('constructs');
/* eslint-enable @typescript-eslint/no-require-imports */

type Json = Record<string, unknown>;
type Entry = Json & { '//'?: { metadata?: { path?: string }; secretform?: unknown } };

const reference = process.env.BENCH_FLOOR_REF;
if (reference === undefined) throw new Error('BENCH_FLOOR_REF: the output directory of the constructs app to copy');
const mode = process.env.BENCH_FLOOR_MODE ?? 'minimal';
if (mode !== 'minimal' && mode !== 'overrides') throw new Error(`BENCH_FLOOR_MODE: received ${JSON.stringify(mode)}; minimal or overrides`);

// Reading the precomputed values is the floor app's own cost, not cdktf's: timed apart, on stderr.
const readStart = process.cpuUsage();
const manifest = JSON.parse(readFileSync(join(reference, 'manifest.json'), 'utf8')) as { stacks: Record<string, { synthesizedStackPath: string }> };
const configurations = new Map<string, Json>();
for (const [name, stack] of Object.entries(manifest.stacks)) {
  configurations.set(name, JSON.parse(readFileSync(join(reference, stack.synthesizedStackPath), 'utf8')) as Json);
}
const read = process.cpuUsage(readStart);
process.stderr.write(`floor: reading the precomputed values took ${((read.user + read.system) / 1e6).toFixed(3)} s of CPU\n`);

/** The step is the last element; every carrier is listed in its depends_on, in the constructs' order. */
const STEP_ID = 'secretform';

function addStack(app: InstanceType<typeof cdktf.App>, name: string, configuration: Json): void {
  const stack = new cdktf.TerraformStack(app, name);
  const blocks = configuration.resource as Record<string, Record<string, Entry>>;
  const [type] = Object.keys(blocks);
  const entries = blocks[type];
  const step = entries[STEP_ID];
  const order = (step.depends_on as string[]).map((address) => address.slice(type.length + 1));
  const relativePath = (id: string) => entries[id]['//']!.metadata!.path!.split('/').slice(1);
  // The constructs' scopes first, in the constructs' order: each construct's children keep the same order (a
  // construct's own children, then its carrier), so the element order, and with it the override-key list, is theirs.
  const scopes = new Map<string, InstanceType<typeof Construct>>();
  const scopeOf = (parts: readonly string[]): InstanceType<typeof Construct> => {
    if (parts.length === 0) return stack;
    const key = parts.join('/');
    let scope = scopes.get(key);
    if (scope === undefined) {
      scope = new Construct(scopeOf(parts.slice(0, -1)), parts[parts.length - 1]);
      scopes.set(key, scope);
    }
    return scope;
  };
  for (const id of order) scopeOf(relativePath(id).slice(0, -1));
  const elements = new Map<string, InstanceType<typeof cdktf.TerraformResource>>();
  for (const id of [...order, STEP_ID]) {
    const parts = relativePath(id);
    const element = new cdktf.TerraformResource(scopeOf(parts.slice(0, -1)), parts[parts.length - 1], {
      terraformResourceType: type,
      ...(id === STEP_ID ? {} : { terraformGeneratorMetadata: { providerName: 'terraform' } }),
    });
    elements.set(id, element);
  }
  if (mode === 'overrides') {
    for (const id of [...order, STEP_ID]) {
      const entry = entries[id];
      const element = elements.get(id)!;
      const keys = id === STEP_ID ? ['input', 'triggers_replace', 'lifecycle', 'provisioner', 'depends_on'] : ['input', '//', 'depends_on'];
      for (const key of keys) {
        if (key === '//') {
          if (entry['//']?.secretform !== undefined) element.addOverride('//.secretform', entry['//'].secretform);
        } else if (entry[key] !== undefined) {
          element.addOverride(key, entry[key]);
        }
      }
    }
    return;
  }
  // minimal: every value put into the configuration cdktf built, before it writes it.
  const original = stack.toTerraform.bind(stack);
  stack.toTerraform = () => {
    const built = original() as Json;
    const builtEntries = (built.resource as Record<string, Record<string, Json>>)[type];
    for (const [id, entry] of Object.entries(entries)) {
      const target = builtEntries[id];
      for (const [key, value] of Object.entries(entry)) {
        if (key === '//') {
          if (entry['//']?.secretform !== undefined) (target['//'] as Json).secretform = entry['//'].secretform;
        } else {
          target[key] = value;
        }
      }
    }
    const metadata = (configuration['//'] as { metadata: { overrides?: unknown } }).metadata;
    ((built['//'] as { metadata: Json }).metadata).overrides = metadata.overrides;
    return built;
  };
}

const app = new cdktf.App();
for (const [name, configuration] of configurations) addStack(app, name, configuration);
app.synth();
