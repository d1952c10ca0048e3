/**
 * The cdktf.json that makes a generated app synthesize as it stands: `secretform synth` (and `cdktf synth`) run
 * the command in its `app`. `node --import tsx` runs TypeScript without npx, which adds a second or so to every
 * synth (it resolves the package each time); it needs Node >= 20.6 and tsx installed in the project.
 */
export const PROJECT_FILE = 'cdktf.json';

/** The project file for an app written to `appFile` (a path relative to the project file's folder). */
export function projectFileFor(appFile: string): string {
  return `${JSON.stringify({ language: 'typescript', app: `node --import tsx ${appFile}` }, null, 2)}\n`;
}
