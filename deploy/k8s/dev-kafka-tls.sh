#!/usr/bin/env bash
# The dev overlay's Kafka TLS material, made on this machine with deploy/kafka/make-tls.sh (the
# script compose's kafka-tls runs) into deploy/k8s/overlays/dev/.kafka-tls/, which git ignores.
# The overlay's secretGenerator turns it into the Secrets kafka-broker-tls (the broker's keystore)
# and kafka-cluster-ca-cert (the CA certificate every client trusts). A dev cluster has no pod
# that could write a Secret (no image with kubectl, no service account token), so the material
# is made here; the CA's key (ca/ca.p12) never leaves this machine.
#
#   bash deploy/k8s/dev-kafka-tls.sh        (npm run k8s:dev-tls)
#
# Idempotent: material already there is kept, so applying again changes no Secret. To start
# over (a new CA), delete the directory, run this, and apply the overlay again
# (docs/operations/kubernetes.md, "dev").
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=deploy/k8s/overlays/dev/.kafka-tls
if [ -s "$dir/broker/broker.p12" ] && [ -s "$dir/broker/broker.password" ] && [ -s "$dir/trust/ca.pem" ]; then
  echo "dev Kafka TLS material kept: $dir"
  exit 0
fi
# The broker's names: its headless Service (what clients dial), its pod's own name, and localhost
# (the readiness probe, from inside the pod).
# keytool's chatter is shown only when it fails.
if ! output=$(bash deploy/kafka/make-tls.sh "$dir/ca" "$dir/trust" "$dir/broker" dns:kafka,dns:kafka-0.kafka,dns:localhost 2>&1); then
  echo "$output" >&2
  echo "deploy/kafka/make-tls.sh failed (it needs keytool, from a Java runtime)" >&2
  exit 1
fi
echo "dev Kafka TLS material made: $dir"
