#!/usr/bin/env bash
# Renders both overlays (kubectl kustomize) and validates every built-in resource offline with
# kubernetes-validate --strict (unknown fields are errors) against a pinned Kubernetes version.
# The operators' custom resources have no schema offline: they are left out and named.
# Prints one line per overlay and exits non-zero when an overlay fails to render or validate.
#
#   bash deploy/k8s/validate.sh
#
# Idempotent: the first run makes a Python venv with kubernetes-validate under .local/ (about
# 10 s, from PyPI); later runs reuse it. The dev overlay's Kafka TLS Secrets are generated from
# files made on this machine: made first when missing (deploy/k8s/dev-kafka-tls.sh, needs keytool).
# Needs kubectl (for its kustomize), python3 and node.
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
for overlay in dev prod; do
  rendered="$work/$overlay.yaml"
  built_in="$work/$overlay.built-in.yaml"
  if ! kubectl kustomize "deploy/k8s/overlays/$overlay" >"$rendered" 2>"$work/$overlay.err"; then
    echo "$overlay: FAILED to render: $(cat "$work/$overlay.err")"
    failed=1
    continue
  fi
  split=$(node deploy/k8s/built-in-resources.mjs "$rendered" "$built_in")
  count=$(node -e 'console.log(JSON.parse(process.argv[1]).builtIn)' "$split")
  skipped=$(node -e 'console.log(JSON.parse(process.argv[1]).skippedKinds.join(", ") || "none")' "$split")
  # --quiet prints only warnings and failures; its exit status is what counts.
  if report=$("$VALIDATOR" --strict --quiet -k "$KUBERNETES_VERSION" "$built_in" 2>&1); then
    echo "$overlay: $count built-in resources valid against Kubernetes $KUBERNETES_VERSION (--strict); skipped (custom resources, no schema offline): $skipped"
  else
    echo "$overlay: FAILED validation against Kubernetes $KUBERNETES_VERSION (--strict):"
    echo "$report" | sed "s|$work/||g"
    failed=1
  fi
done
exit "$failed"
