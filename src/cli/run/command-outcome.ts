/**
 * How a command hands back how it ended (its exit code, or its failure: command-failure.ts), and how it registers itself: what every command file and main.ts
 * share, kept here so that no command imports main.ts (main loads the commands).
 */
import type { Command } from 'commander';
import type { CommandEnd } from './command-failure';

/** Where a command leaves how it ended (commander's action handlers return nothing); main.ts reports it. */
export interface CommandOutcome {
  end: CommandEnd;
}

/** Each command lives in its own file under ../commands and registers itself with main.ts. */
export type CommandRegistration = (program: Command, outcome: CommandOutcome) => void;
