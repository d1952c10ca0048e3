// The integration pass (`npm run test:integration`, the second pass of .ci/run): the tests of the product as a
// user meets it outside this repository's sources: the packed package installed into fresh projects, the
// README and docs run as written (and every command's --help against what it really reads), the examples'
// CI workflows run line by line, the comment and the dashboard rendered in Chromium, and the third-party
// toolchains (cdktf-cli, cdktn, terraform). They are the slowest files; `npm test` runs every other test,
// in parallel, so a contributor's loop stays under ten minutes. One list, read by both jest configs.
module.exports = [
  'test/e2e/package-types.test.ts',
  'test/e2e/package-install.test.ts',
  'test/e2e/readme-new-project.test.ts',
  'test/e2e/quickstart.test.ts',
  'test/e2e/docs-http-api.test.ts',
  'test/e2e/docs-blocks.test.ts',
  'test/e2e/docs-operations-blocks.test.ts',
  'test/e2e/readme-real-service.test.ts',
  'test/e2e/cli-refusal-ways-out.test.ts',
  'test/e2e/ci-workflows.test.ts',
  'test/e2e/ci-drift-issues.test.ts',
  'test/e2e/cli-help-environment.test.ts',
  'test/e2e/environments-example.test.ts',
  'test/e2e/comment-browser.test.ts',
  'test/e2e/drift-dashboard-browser.test.ts',
  'test/e2e/synth-cdktf.test.ts',
  'test/e2e/generate-roundtrip.test.ts',
  'test/e2e/deploy-bridge-terraform.test.ts',
  'test/e2e/deploy-bridge-environments.test.ts',
  'test/e2e/cdktn-app.test.ts',
  'test/e2e/cdktn-deploy.test.ts',
];
