export { createKvArea } from './area';
export { KvStore, DEFAULT_MAX_VERSIONS } from './store';
