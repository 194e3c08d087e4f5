const { availableParallelism } = require('node:os');

// One Jest run for the whole workspace (cheapest on a 2-core machine), split into tiers by file name:
// *.spec.ts = unit (no network), *.int.spec.ts = real infrastructure, e2e/**/*.e2e-spec.ts = whole processes.
// Nest 12 is ESM-only: Jest must run on Node >= 24.9 with --experimental-vm-modules (see README, "Stack").
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2023',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@novelrag/(agenturn|bus|tool-kit|resource-client)/testing$': '<rootDir>/libs/$1/src/testing/index.ts',
    '^@novelrag/(contracts|agenturn|llm|bus|testkit|tool-kit|repository|resource-client|mcp-server|telemetry)$':
      '<rootDir>/libs/$1/src/index.ts',
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.*/dist/', '<rootDir>/data/', '<rootDir>/tmp/'],
};
module.exports = {
  testTimeout: 30_000,
  // Most int and e2e suites wait on NATS, child processes and sockets rather than on the CPU: on a 2-core machine
  // Jest's default (cores - 1 = 1 worker, in band) left the CPU idle for much of the run. Three workers cut the
  // suite from ~16 to ~6 minutes here; the suites are written to pass under CPU load (CI runs them beside a hog).
  maxWorkers: Math.max(3, availableParallelism() - 1),
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/(apps|libs|tools)/**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.int\\.spec\\.ts$', '/node_modules/'],
    },
    {
      ...shared,
      displayName: 'int',
      setupFilesAfterEnv: ['<rootDir>/tools/jest/process-tiers.setup.ts'],
      testMatch: ['<rootDir>/(apps|libs|tools)/**/*.int.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
      slowTestThreshold: 20,
    },
    {
      ...shared,
      displayName: 'e2e',
      setupFilesAfterEnv: ['<rootDir>/tools/jest/process-tiers.setup.ts'],
      testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
    },
  ],
};
