#!/usr/bin/env bash
# The compose file's Kafka broker in the secured configuration (docs/operations/kafka-security.md),
# run as the apache/kafka image's command so that no image-specific helper is relied upon:
# - clients reach SASL_SSL on :9092 (SCRAM-SHA-512, the certificate of make-tls.sh);
# - the controller listens on loopback only, with SASL PLAIN as the admin principal;
# - the StandardAuthorizer refuses whatever no ACL allows; only the admin is a super user.
# On first start the storage is formatted with the admin's SCRAM credential (in KRaft a SCRAM
# user is cluster metadata, so the first one can only come with the format, KIP-900). The
# services' users are made afterwards by set-service-users.sh, their ACLs by the init step.
# Environment: KAFKA_ADMIN_PASSWORD (required), CLUSTER_ID, KAFKA_HEAP_OPTS, KAFKA_ADVERTISED_HOST.
set -euo pipefail
: "${KAFKA_ADMIN_PASSWORD:?KAFKA_ADMIN_PASSWORD is not set: put it in .env (see .env.example)}"
case "$KAFKA_ADMIN_PASSWORD" in *[!A-Za-z0-9._-]*) echo "KAFKA_ADMIN_PASSWORD may hold only letters, digits and . _ - (it is written into the broker's JAAS line)" >&2; exit 2;; esac
kafka_home=/opt/kafka
data_dir=/var/lib/kafka/data
tls=/etc/kafka/tls
config_dir=$(mktemp -d)
advertised_host=${KAFKA_ADVERTISED_HOST:-kafka}
keystore_password=$(cat "$tls/broker/broker.password")

cat > "$config_dir/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=SASL_SSL://:9092,CONTROLLER://127.0.0.1:9093
advertised.listeners=SASL_SSL://${advertised_host}:9092
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_SSL
listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${KAFKA_ADMIN_PASSWORD}";
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${KAFKA_ADMIN_PASSWORD}" user_admin="${KAFKA_ADMIN_PASSWORD}";
ssl.keystore.type=PKCS12
ssl.keystore.location=${tls}/broker/broker.p12
ssl.keystore.password=${keystore_password}
ssl.truststore.type=PEM
ssl.truststore.location=${tls}/trust/ca.pem
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin
allow.everyone.if.no.acl.found=false
log.dirs=${data_dir}
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
# Share groups' state topic (Kafka 4.x) defaults to replication factor 3, which one broker cannot give.
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
PROPERTIES

# The admin's client settings, for the health check and set-service-users.sh (same container).
cat > /tmp/admin-client.properties <<PROPERTIES
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${KAFKA_ADMIN_PASSWORD}";
ssl.truststore.type=PEM
ssl.truststore.location=${tls}/trust/ca.pem
PROPERTIES
chmod 600 "$config_dir/server.properties" /tmp/admin-client.properties

if [ ! -f "$data_dir/meta.properties" ]; then
  "$kafka_home/bin/kafka-storage.sh" format --cluster-id "${CLUSTER_ID:?CLUSTER_ID is not set}" --config "$config_dir/server.properties" \
    --add-scram "SCRAM-SHA-512=[name=admin,password=${KAFKA_ADMIN_PASSWORD}]"
fi
exec "$kafka_home/bin/kafka-server-start.sh" "$config_dir/server.properties"
