// `npm test`: every test but the integration pass (test/integration-tests.js), two files at a time: the
// end-to-end files spend most of their time waiting on the children they drive (the CLI, dev servers,
// PostgreSQL), so a second worker uses the second core. Each file starts its own servers on free ports.
const base = require('./jest.config');
const integration = require('./test/integration-tests');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  maxWorkers: 2,
  testPathIgnorePatterns: ['/node_modules/', ...integration.map((file) => `<rootDir>/${file}$`)],
};
