// Types of the two undici modules src/client/undici-pool.ts loads directly (undici types only its entry point).
declare module 'undici/lib/dispatcher/pool' {
  import { Pool } from 'undici';
  export = Pool;
}

declare module 'undici/lib/api' {
  import type { Dispatcher } from 'undici';
  export function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
