export default async function globalTeardown(): Promise<void> {
  const state = globalThis as { __infra?: { stop: () => Promise<void> } };
  const infra = state.__infra;
  state.__infra = undefined;
  await infra?.stop();
}
