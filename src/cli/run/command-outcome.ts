/**
 * How a command hands back its exit code, and how it registers itself: what every command file and main.ts
 * share, kept here so that no command imports main.ts (main loads the commands).
 */
import type { Command } from 'commander';

/** Where a command leaves its exit code (commander's action handlers return nothing). */
export interface CommandOutcome {
  exitCode: number;
}

/** Each command lives in its own file under ../commands and registers itself with main.ts. */
export type CommandRegistration = (program: Command, outcome: CommandOutcome) => void;
