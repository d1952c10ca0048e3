/**
 * A client of the state database as every part of the state stage opens one (the state backend, the drift
 * history): the location's server and credentials, TLS verified when the location asks for TLS, one connect
 * timeout, and the process kept alive on a connection lost later (the next query reports it); and the
 * password masked in what its errors say.
 */
import type { Client } from 'pg';
import type { PostgresLocation } from './state-location';

const CONNECT_TIMEOUT_MS = 10_000;

/** A client not yet connected; `applicationName` is what the server's `pg_stat_activity` shows for it. */
export async function newPostgresClient(where: PostgresLocation, applicationName: string): Promise<Client> {
  const { Client: PgClient } = await import('pg');
  const client = new PgClient({
    host: where.host,
    port: where.port,
    user: where.user,
    password: where.password,
    database: where.database,
    ssl: where.ssl ? { rejectUnauthorized: true } : false,
    application_name: applicationName,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A connection lost later fails the next query, which reports it; without a listener it would crash the process.
  client.on('error', () => undefined);
  return client;
}

/** `message` (a driver's error) with the location's password masked: errors name the masked URL only. */
export function maskPassword(where: PostgresLocation, message: string): string {
  const password = where.password;
  return password ? message.split(password).join('***') : message;
}
