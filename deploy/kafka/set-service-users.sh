#!/usr/bin/env bash
# Makes (or re-keys) each service's SCRAM-SHA-512 user on the secured broker, as the admin:
# kafkajs cannot alter SCRAM credentials (no AlterUserScramCredentials), so Kafka's own tool does.
# Rerunning it with a new <SERVICE>_KAFKA_PASSWORD rotates that service's password; the service
# picks it up on its next start (docs/operations/kafka-security.md).
# Usage: set-service-users.sh <bootstrap host:port> <service>... [--optional <user>...]
# Environment: KAFKA_ADMIN_PASSWORD, KAFKA_CA_FILE, and <SERVICE>_KAFKA_PASSWORD per service.
# Users after --optional (the dead-letter replay principals, dlq-replay-<topic>) are made when their
# password variable is set and skipped with a note when not: an installation from before they
# existed keeps starting, and has no replay principal until its .env gets their passwords.
set -euo pipefail
bootstrap=$1
shift
: "${KAFKA_ADMIN_PASSWORD:?KAFKA_ADMIN_PASSWORD is not set: put it in .env (see .env.example)}"
client=$(mktemp)
chmod 600 "$client"
cat > "$client" <<PROPERTIES
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${KAFKA_ADMIN_PASSWORD}";
ssl.truststore.type=PEM
ssl.truststore.location=${KAFKA_CA_FILE:-/etc/kafka/tls/trust/ca.pem}
PROPERTIES
missing=()
users=()
optional=false
for service in "$@"; do
  if [ "$service" = "--optional" ]; then optional=true; continue; fi
  variable="$(echo "$service" | tr '[:lower:]-' '[:upper:]_')_KAFKA_PASSWORD"
  password=${!variable:-}
  if [ -z "$password" ] && $optional; then echo "[kafka-users] $service: skipped, $variable is not set"; continue; fi
  if [ -z "$password" ]; then missing+=("$variable"); continue; fi
  users+=("$service")
  case "$password" in *[!A-Za-z0-9._-]*) echo "$variable may hold only letters, digits and . _ -" >&2; exit 2;; esac
done
if [ ${#missing[@]} -gt 0 ]; then echo "not set: ${missing[*]} (put them in .env, see .env.example)" >&2; exit 2; fi
for service in "${users[@]}"; do
  variable="$(echo "$service" | tr '[:lower:]-' '[:upper:]_')_KAFKA_PASSWORD"
  /opt/kafka/bin/kafka-configs.sh --bootstrap-server "$bootstrap" --command-config "$client" \
    --alter --entity-type users --entity-name "$service" --add-config "SCRAM-SHA-512=[iterations=8192,password=${!variable}]" > /dev/null
  echo "[kafka-users] $service: SCRAM-SHA-512 credential set"
done
rm -f "$client"
