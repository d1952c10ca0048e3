// `npm run test:integration`: the integration pass (see test/integration-tests.js), one file at a time: several
// of its files start the dev server on the documented port 8200, as the README and the docs do.
const base = require('./jest.config');
const integration = require('./test/integration-tests');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  maxWorkers: 1,
  testMatch: integration.map((file) => `<rootDir>/${file}`),
};
