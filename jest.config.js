/** @type {import('jest').Config} */
module.exports = {
  // Node's, removing the temporary directories each file made (test/support/temp-dir.ts) when it ends.
  testEnvironment: '<rootDir>/test/support/temp-dir-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Transpile only (each file on its own, fast); `npm test` type-checks the whole project with tsc first.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }] },
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
