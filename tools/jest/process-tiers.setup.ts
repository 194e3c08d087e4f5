// Integration and e2e tests start NATS servers and services as OS processes (Node starts, LanceDB opens, JetStream
// streams): beside a CPU hog with three Jest workers a `beforeAll` that boots them can take well over the 30 s bound
// that unit tests keep. Their bound is 90 s; a test or hook that sets its own keeps it.
jest.setTimeout(90_000);
