// The bench's dev server in a process of its own (the fleet bench's servers): nothing it does, not even its
// garbage collection or its messages to the bench, runs on the bench's thread. Its options come as JSON in
// BENCH_SERVER_OPTIONS; the messages of dev-server-messages.ts travel over the IPC channel.
import { serveBench, type BenchServerOptions } from './dev-server-messages';

void serveBench(
  JSON.parse(process.env.BENCH_SERVER_OPTIONS ?? '{}') as BenchServerOptions,
  (message) => process.send!(message),
  (handle) => process.on('message', handle),
  () => process.disconnect(),
);
