#!/usr/bin/env bash
# Makes the Kafka broker's TLS material with keytool (part of every Java runtime, so it runs in the
# apache/kafka image and next to the local broker alike; no openssl needed):
#   <ca-dir>/ca.p12      the certificate authority's key pair (keep it where only this job reads it)
#   <trust-dir>/ca.pem   the CA certificate clients trust (KAFKA_SSL_CA_FILE)
#   <broker-dir>/broker.p12 and broker.password   the broker's key and certificate, signed by the CA
# Usage: make-tls.sh <ca-dir> <trust-dir> <broker-dir> <subject-alt-names>
#   e.g. make-tls.sh /tls/ca /tls/trust /tls/broker dns:kafka,dns:localhost,ip:127.0.0.1
# Idempotent: material already there is kept, so a restart does not change what clients trust.
# The passwords protect the files at rest only; they are random and stored beside each store,
# which is what a PKCS12 file that a process must open unattended comes down to.
set -euo pipefail
ca_dir=$1 trust_dir=$2 broker_dir=$3 san=$4
validity_days=${KAFKA_TLS_VALIDITY_DAYS:-825}
mkdir -p "$ca_dir" "$trust_dir" "$broker_dir"
umask 077
random_password() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

if [ ! -s "$ca_dir/ca.p12" ]; then
  random_password > "$ca_dir/ca.password"
  keytool -genkeypair -noprompt -alias ca -keyalg EC -groupname secp256r1 -dname "CN=merchant-payments Kafka CA" \
    -ext bc:c -validity "$validity_days" -storetype PKCS12 -keystore "$ca_dir/ca.p12" -storepass:file "$ca_dir/ca.password"
fi
ca_password_file="$ca_dir/ca.password"
umask 022
keytool -exportcert -rfc -alias ca -keystore "$ca_dir/ca.p12" -storepass:file "$ca_password_file" > "$trust_dir/ca.pem.tmp"
mv "$trust_dir/ca.pem.tmp" "$trust_dir/ca.pem"
umask 077

if [ ! -s "$broker_dir/broker.p12" ]; then
  random_password > "$broker_dir/broker.password"
  store=(-storetype PKCS12 -keystore "$broker_dir/broker.p12" -storepass:file "$broker_dir/broker.password")
  keytool -genkeypair -noprompt -alias broker -keyalg EC -groupname secp256r1 -dname "CN=kafka" -validity "$validity_days" "${store[@]}"
  keytool -certreq -alias broker "${store[@]}" > "$broker_dir/broker.csr"
  keytool -gencert -noprompt -alias ca -keystore "$ca_dir/ca.p12" -storepass:file "$ca_password_file" -validity "$validity_days" \
    -ext "san=$san" -ext ku:c=digitalSignature,keyEncipherment -ext eku=serverAuth -rfc -infile "$broker_dir/broker.csr" > "$broker_dir/broker.crt"
  keytool -importcert -noprompt -alias ca -file "$trust_dir/ca.pem" "${store[@]}"
  keytool -importcert -noprompt -alias broker -file "$broker_dir/broker.crt" "${store[@]}"
  rm -f "$broker_dir/broker.csr" "$broker_dir/broker.crt"
fi
# The broker runs as another user than this job in some images: it must read its own store.
chmod 644 "$broker_dir/broker.p12" "$broker_dir/broker.password" 2>/dev/null || true
