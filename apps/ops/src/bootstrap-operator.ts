/**
 * The ops image's bootstrap command: the deployment's first operator, once
 * (bootstrap/bootstrap-operator.command.ts; docs/operations/operators.md).
 *
 *   node dist/apps/ops/src/bootstrap-operator.js --name "Alice" [--json | --secret NAME] [--force]
 */
import { inClusterKubernetesApi } from './bootstrap/kubernetes-secret';
import { runBootstrapOperator } from './bootstrap/bootstrap-operator.command';

runBootstrapOperator(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  kubernetes: () => inClusterKubernetesApi(),
}).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
