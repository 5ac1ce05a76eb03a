#!/usr/bin/env bash
# Makes the platform's TLS material with keytool (part of every Java runtime, so it runs in the
# apache/kafka image and next to the local broker alike; no openssl needed): the Kafka broker's,
# and the services' internal HTTPS listeners' (docs/operations/internal-tls.md), from one CA:
#   <ca-dir>/ca.p12      the certificate authority's key pair (keep it where only this job reads it)
#   <trust-dir>/ca.pem   the CA certificate clients trust (KAFKA_SSL_CA_FILE, NODE_EXTRA_CA_CERTS)
#   <broker-dir>/broker.p12 and broker.password   the broker's key and certificate, signed by the CA
#   <listener-dir>/keystore.p12 and keystore.password   one per <listener-dir>=<names> argument:
#                        a service's key and certificate (INTERNAL_TLS_KEYSTORE_FILE, …_PASSWORD_FILE)
# Usage: make-tls.sh <ca-dir> <trust-dir> <broker-dir> <subject-alt-names> [<listener-dir>=<subject-alt-names> ...]
#   e.g. make-tls.sh /tls/ca /tls/trust /tls/broker dns:kafka,dns:localhost /tls/ledger=dns:ledger,dns:localhost
# Idempotent: material already there is kept, so a restart does not change what clients trust.
# The passwords protect the files at rest only; they are random and stored beside each store,
# which is what a PKCS12 file that a process must open unattended comes down to.
set -euo pipefail
ca_dir=$1 trust_dir=$2 broker_dir=$3 san=$4
shift 4
listeners=("$@")
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

# A key pair signed by the CA, in a PKCS12 store with its random password beside it:
# make_signed_store <store> <password-file> <alias> <common-name> <subject-alt-names>
make_signed_store() {
  local store_file=$1 password_file=$2 alias=$3 common_name=$4 names=$5
  random_password > "$password_file"
  local store=(-storetype PKCS12 -keystore "$store_file" -storepass:file "$password_file")
  keytool -genkeypair -noprompt -alias "$alias" -keyalg EC -groupname secp256r1 -dname "CN=$common_name" -validity "$validity_days" "${store[@]}"
  keytool -certreq -alias "$alias" "${store[@]}" > "$store_file.csr"
  keytool -gencert -noprompt -alias ca -keystore "$ca_dir/ca.p12" -storepass:file "$ca_password_file" -validity "$validity_days" \
    -ext "san=$names" -ext ku:c=digitalSignature,keyEncipherment -ext eku=serverAuth -rfc -infile "$store_file.csr" > "$store_file.crt"
  keytool -importcert -noprompt -alias ca -file "$trust_dir/ca.pem" "${store[@]}"
  keytool -importcert -noprompt -alias "$alias" -file "$store_file.crt" "${store[@]}"
  rm -f "$store_file.csr" "$store_file.crt"
}

if [ ! -s "$broker_dir/broker.p12" ]; then
  make_signed_store "$broker_dir/broker.p12" "$broker_dir/broker.password" broker kafka "$san"
fi
# The broker runs as another user than this job in some images: it must read its own store.
chmod 644 "$broker_dir/broker.p12" "$broker_dir/broker.password" 2>/dev/null || true

for listener in "${listeners[@]}"; do
  listener_dir=${listener%%=*} listener_names=${listener#*=}
  mkdir -p "$listener_dir"
  if [ ! -s "$listener_dir/keystore.p12" ]; then
    # The certificate's common name is its first name, e.g. dns:ledger gives CN=ledger.
    first_name=${listener_names%%,*}
    make_signed_store "$listener_dir/keystore.p12" "$listener_dir/keystore.password" service "${first_name#*:}" "$listener_names"
  fi
  # Each volume is mounted by its one service, which runs as `node`, not as this job's user.
  chmod 755 "$listener_dir"
  chmod 644 "$listener_dir/keystore.p12" "$listener_dir/keystore.password" 2>/dev/null || true
done
