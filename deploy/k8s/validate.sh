#!/usr/bin/env bash
# Renders both overlays and the Jobs applied by hand (kubectl kustomize) and validates them offline: every built-in resource
# with kubernetes-validate --strict (unknown fields are errors) against a pinned Kubernetes
# version; the operators' custom resources (Strimzi, CloudNativePG, Prometheus Operator) against
# their CRDs' schemas (deploy/k8s/custom-resources.mjs); a kind with no schema is named. Then
# the alert rules with promtool (deploy/observability/alerts.yml, which the PrometheusRule holds).
# Prints one line per overlay and exits non-zero when an overlay fails to render or validate.
#
#   bash deploy/k8s/validate.sh
#
# Idempotent: the first run makes a Python venv with kubernetes-validate under .local/ (about
# 10 s, from PyPI); later runs reuse it. The dev overlay's Kafka TLS Secrets are generated from
# files made on this machine: made first when missing (deploy/k8s/dev-kafka-tls.sh, needs keytool).
# Needs kubectl (for its kustomize), python3, node (with the workspace's node_modules) and
# promtool (Debian's package prometheus).
set -euo pipefail
cd "$(dirname "$0")/../.."

KUBERNETES_VERSION=1.30.0
VALIDATOR_VERSION=1.37.0
VENV=.local/k8s-validate
VALIDATOR="$VENV/bin/kubernetes-validate"

if [ "$("$VALIDATOR" --version 2>/dev/null || true)" != "$VALIDATOR_VERSION" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "kubernetes-validate==$VALIDATOR_VERSION"
fi

bash deploy/k8s/dev-kafka-tls.sh >/dev/null
node tools/generate-secrets.mjs --k8s-dev >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
# Both overlays, and the Job kustomizations applied by hand (jobs/*).
for target in overlays/dev overlays/prod jobs/projection-rebuild; do
  overlay=${target##*/}
  rendered="$work/$overlay.yaml"
  built_in="$work/$overlay.built-in.yaml"
  if ! kubectl kustomize "deploy/k8s/$target" >"$rendered" 2>"$work/$overlay.err"; then
    echo "$overlay: FAILED to render: $(cat "$work/$overlay.err")"
    failed=1
    continue
  fi
  split=$(node deploy/k8s/built-in-resources.mjs "$rendered" "$built_in")
  count=$(node -e 'console.log(JSON.parse(process.argv[1]).builtIn)' "$split")
  skipped=$(node -e 'console.log(JSON.parse(process.argv[1]).skippedKinds.join(", ") || "none")' "$split")
  # --quiet prints only warnings and failures; its exit status is what counts.
  if report=$("$VALIDATOR" --strict --quiet -k "$KUBERNETES_VERSION" "$built_in" 2>&1); then
    echo "$overlay: $count built-in resources valid against Kubernetes $KUBERNETES_VERSION (--strict); custom resources, checked next: $skipped"
  else
    echo "$overlay: FAILED validation against Kubernetes $KUBERNETES_VERSION (--strict):"
    echo "$report" | sed "s|$work/||g"
    failed=1
  fi
  if custom=$(node deploy/k8s/custom-resources.mjs "$rendered"); then
    echo "$overlay: $(node -e 'const r = JSON.parse(process.argv[1]); console.log(`${r.valid} custom resources valid against their CRD schemas; no schema offline: ${r.noSchema.join(", ") || "none"}`)' "$custom")"
  else
    echo "$overlay: FAILED validation against the CRD schemas: $custom"
    failed=1
  fi
done
if ! rules=$(promtool check rules deploy/observability/alerts.yml 2>&1); then
  echo "alert rules: FAILED: $rules"
  failed=1
else
  echo "alert rules: $(echo "$rules" | grep -o 'SUCCESS.*')"
fi
exit "$failed"
