// Public exports of the dev server (the service emulator).
export { startDevServer, DEFAULT_PORT, type DevServer, type DevServerOptions } from './server';
export { ManualClock, systemClock, type Clock } from './clock';
export { DEFAULT_SEED, loadSeedFile, parseSeed, SeedError, type Seed } from './seed';
export type { RequestLogEntry } from './router';
export type { FaultControl } from './faults';
