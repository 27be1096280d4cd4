#!/usr/bin/env bash
# Regenerates the test certificates (never needed for tests; the outputs are committed).
# Dates are relative to when this runs: tests pin `now:` in their configuration to a day
# after generation, so certificate lifetimes below are what the expiry rules see.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A CA valid for 100 years.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout ca.key -out ca.crt -days 36500 -subj "/CN=Demo Root CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

leaf() { # name days san...
  local name=$1 days=$2; shift 2
  local sans; sans=$(printf 'DNS:%s,' "$@"); sans=${sans%,}
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$name.key" -out "$tmp/$name.csr" -subj "/CN=$1"
  printf 'basicConstraints=CA:FALSE\nsubjectAltName=%s\n' "$sans" > "$tmp/$name.ext"
  openssl x509 -req -in "$tmp/$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial \
    -out "$name.crt" -days "$days" -extfile "$tmp/$name.ext"
}
# The router's server certificate, valid for 100 years.
leaf router 36500 router.apps.svc.cluster.local '*.router-headless.apps.svc.cluster.local'
# A certificate that expires 30 days after generation.
leaf short 30 short.apps.svc.cluster.local
rm -f ca.srl
openssl x509 -in ca.crt -noout -fingerprint -sha256 > ca.fingerprint
openssl x509 -in router.crt -noout -enddate > router.enddate
openssl x509 -in short.crt -noout -enddate > short.enddate
