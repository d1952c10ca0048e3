/**
 * Writes each stack's digest record (engine/setup/desired-digest-record.ts) at synth, next to the `cdk.tf.json`
 * the framework has just written: from the configuration the stack's `toTerraform()` built (the objects the file
 * was written from, so nothing is parsed again) and the file's bytes (so change detection can tell the record
 * still describes the file). The synthesized configuration itself is not touched; for cdktf's own synthesizer
 * the file is written here rather than by the framework, with the same bytes (stack-file.ts).
 *
 * A stack whose record cannot be made (a construct synthesized without validation, an app writing HCL, a
 * synthesizer of the app's own) gets none, and any earlier one is removed: change detection then reads its
 * file in full, as it does for an output of a version before records. Synth never fails because of a record.
 */
import * as path from 'node:path';
import type { IConstruct } from 'constructs';
import { digestRecordOf, removeDigestRecord, writeDigestRecord } from '../engine/setup/desired-digest-record';
import { onStackConfiguration, writesStableJson } from './cdktf-adapter';
import { synthesizeWithEmptyConfiguration, writeStackFile } from './stack-file';

/** What secretform uses of the framework's stack synthesizer (the same in cdktf 0.21 and cdktn 0.24). */
interface SynthesizerLike {
  synthesize: (this: SynthesizerLike, session: SessionLike) => void;
}

interface SessionLike {
  readonly outdir: string;
  readonly manifest: { forStack(stack: IConstruct): { readonly synthesizedStackPath: string } };
}

/** Call once per stack, before synth. */
export function recordStackDigest(stack: IConstruct): void {
  const synthesizer = (stack as unknown as { synthesizer?: SynthesizerLike }).synthesizer;
  if (synthesizer === undefined || typeof synthesizer.synthesize !== 'function') return;
  // The configuration of the stack's last `toTerraform()`: the synthesizer writes it right after building it.
  let configuration: Record<string, unknown> | undefined;
  onStackConfiguration(stack, (built) => {
    configuration = built;
  });
  const synthesize = synthesizer.synthesize;
  synthesizer.synthesize = function synthesizeAndRecord(this: SynthesizerLike, session: SessionLike): void {
    configuration = undefined;
    // cdktf's own synthesizer: secretform writes the file, faster, with the same bytes (stack-file.ts).
    const writesFile = writesStableJson(stack, this, synthesize);
    if (writesFile) synthesizeWithEmptyConfiguration(stack, () => synthesize.call(this, session));
    else synthesize.call(this, session);
    const built = configuration;
    configuration = undefined;
    const file = path.join(session.outdir, session.manifest.forStack(stack).synthesizedStackPath);
    if (writesFile && built !== undefined) writeStackFile(file, built);
    const stackDir = path.dirname(file);
    try {
      // An HCL output (`cdk.tf`) is not what secretform reads.
      if (built === undefined || path.basename(file) !== 'cdk.tf.json') {
        removeDigestRecord(stackDir);
        return;
      }
      // The specs record too when secretform's writer wrote the file (keys sorted: desired-specs-record.ts).
      writeDigestRecord(stackDir, digestRecordOf(built, file), writesFile ? built : undefined);
    } catch {
      // No record is a slower `secretform stacks`, never a wrong one (see above).
      removeDigestRecord(stackDir);
    }
  };
}
