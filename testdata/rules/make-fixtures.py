#!/usr/bin/env python3
"""Writes the fixture stacks under testdata/rules/stacks from templates in this file and
the certificates in certs/. Run after certs/gen.sh; the outputs are committed."""
import base64
import os
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))


def cert(name):
    with open(os.path.join(HERE, "certs", name)) as f:
        return f.read()


def b64(s):
    return base64.b64encode(s.encode()).decode()


def block(text, indent):
    pad = " " * indent
    return "\n".join(pad + line if line else line for line in text.rstrip("\n").split("\n"))


CA = cert("ca.crt")
CA_KEY = cert("ca.key")
ROUTER = cert("router.crt")
ROUTER_KEY = cert("router.key")
SHORT = cert("short.crt")


def write(stack, rel, text):
    path = os.path.join(HERE, "stacks", stack, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text).lstrip("\n"))


def states(mode, extra_releases="", needs_gateway="[apps/router]"):
    return f"""
    values:
      pki:
        mode: {mode}
    releases:
      - name: cert-manager
        namespace: cert-manager
        chart: jetstack/cert-manager
        version: v1.15.0
        labels: {{group: dependencies}}
      - name: pki
        namespace: pki
        chart: local/pki
        version: 0.1.0
        labels: {{group: dependencies}}
        needs: [cert-manager/cert-manager]
      - name: router
        namespace: apps
        chart: local/router
        version: 1.2.0
        labels: {{group: services}}
        needs: [pki/pki]
      - name: gateway
        namespace: apps
        chart: local/gateway
        version: 1.0.0
        labels: {{group: services}}
        needs: {needs_gateway}
      - name: legacy
        namespace: apps
        chart: local/legacy
        version: 0.9.0
        installed: false
        labels: {{group: services}}
{extra_releases}"""


CERT_MANAGER = """
---
# Source: cert-manager/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: cert-manager
  namespace: cert-manager
---
# Source: cert-manager/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: cert-manager
  namespace: cert-manager
spec:
  replicas: 1
  template:
    spec:
      serviceAccountName: cert-manager
      containers:
        - name: controller
          image: quay.io/jetstack/cert-manager-controller:v1.15.0
"""

PKI = f"""
---
# Source: pki/templates/ca-secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: demo-ca
  namespace: cert-manager
type: kubernetes.io/tls
data:
  tls.crt: {b64(CA)}
  tls.key: {b64(CA_KEY)}
---
# Source: pki/templates/issuer.yaml
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: demo-ca-issuer
spec:
  ca:
    secretName: demo-ca
"""


def values_router(mode, host="router.apps.svc.cluster.local", replicas="2", tag='"1.2.0"', secret="router-tls"):
    return f"""
    pki:
      mode: {mode}
      secretName: {secret}
      issuer: demo-ca-issuer
      caBundle: |
{block(CA, 8)}
      serverCert: |
{block(ROUTER, 8)}
    replicas: {replicas}
    service:
      host: {host}
    image:
      tag: {tag}
    """


VALUES_GATEWAY = """
upstream:
  host: router.apps.svc.cluster.local
  port: 8443
trust:
  configMap: demo-ca-bundle
"""

VALUES_PKI = """
issuer:
  name: demo-ca-issuer
"""

VALUES_CM = """
installCRDs: true
"""


def router_manifests(certificate=True, dns=None, bundle=CA, tls_secret="router-tls", trust_volume=None, tag="1.2.0", extra=""):
    dns = dns or ["router.apps.svc.cluster.local", "*.router-headless.apps.svc.cluster.local"]
    dns_yaml = "\n".join(f"    - {d!r}" if d.startswith("*") else f"    - {d}" for d in dns)
    cert_doc = f"""
---
# Source: router/templates/certificate.yaml
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: router-tls
  namespace: apps
spec:
  secretName: router-tls
  duration: 2160h
  issuerRef:
    name: demo-ca-issuer
    kind: ClusterIssuer
    group: cert-manager.io
  dnsNames:
{dns_yaml}
""" if certificate else ""
    trust = trust_volume or """        - name: trust-bundle
          configMap:
            name: demo-ca-bundle"""
    return f"""{cert_doc}
---
# Source: router/templates/ca-bundle.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo-ca-bundle
  namespace: apps
data:
  ca.crt: |
{block(bundle, 4)}
---
# Source: router/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: router
  namespace: apps
  labels:
    app: router
spec:
  ports:
    - port: 8443
---
# Source: router/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: router
  namespace: apps
  labels:
    app: router
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: router
          image: registry.example/router:{tag}
          volumeMounts:
            - name: tls
              mountPath: /etc/router/tls
            - name: trust-bundle
              mountPath: /etc/router/trust
      volumes:
        - name: tls
          secret:
            secretName: {tls_secret}
{trust}
{extra}"""


GATEWAY = """
---
# Source: gateway/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: gateway-creds
  namespace: apps
stringData:
  token: not-a-real-token
---
# Source: gateway/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: gateway-config
  namespace: apps
data:
  upstream: router.apps.svc.cluster.local:8443
---
# Source: gateway/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway
  namespace: apps
  labels:
    app: gateway
spec:
  template:
    spec:
      containers:
        - name: gateway
          image: registry.example/gateway:1.0.0
          env:
            - name: TOKEN
              valueFrom:
                secretKeyRef:
                  name: {creds}
                  key: token
            - name: OPTIONAL
              valueFrom:
                secretKeyRef:
                  name: maybe-absent
                  key: x
                  optional: true
          envFrom:
            - configMapRef:
                name: gateway-config
      volumes:
        - name: trust-bundle
          configMap:
            name: demo-ca-bundle
"""


def good(stack, mode):
    write(stack, "states.yaml", states(mode))
    write(stack, "values/cert-manager.yaml", VALUES_CM)
    write(stack, "values/pki.yaml", VALUES_PKI)
    write(stack, "values/gateway.yaml", VALUES_GATEWAY)
    write(stack, "manifests/cert-manager.yaml", CERT_MANAGER)
    write(stack, "manifests/pki.yaml", PKI)
    write(stack, "manifests/gateway.yaml", GATEWAY.replace("{creds}", "gateway-creds"))


# certManager mode: the router gets a Certificate and mounts its Secret.
good("cm", "certManager")
write("cm", "values/router.yaml", values_router("certManager"))
write("cm", "manifests/router.yaml", router_manifests())

# existingSecret mode: the operator owns the Secret; no Certificate is rendered.
good("es", "existingSecret")
write("es", "values/router.yaml", values_router("existingSecret", secret="operator-tls"))
write("es", "manifests/router.yaml", router_manifests(certificate=False, tls_secret="operator-tls"))

# bogus mode: the stack's guard refuses to render.
write("bogus", "states.error",
      'in helmfile.d/01-dependencies.yaml.gotmpl: template: stringTemplate:17:4: executing "stringTemplate": '
      'error calling fail: pki.mode must be exactly "certManager" or "existingSecret", got "bogus"\n')

# broken: one deliberate defect per assertion kind.
extra_states = """      - name: cert-manager-copy
        namespace: kube-system
        chart: jetstack/cert-manager
        version: v1.14.0
        labels: {group: dependencies}
      - name: metrics
        namespace: monitoring
        chart: local/metrics
        version: 0.1.0
        labels: {group: observability}
        needs: [apps/ghost]
"""
write("broken", "states.yaml", states("certManager", extra_states))
write("broken", "values/cert-manager.yaml", VALUES_CM)
write("broken", "values/cert-manager-copy.yaml", VALUES_CM)
write("broken", "values/pki.yaml", VALUES_PKI)
write("broken", "values/gateway.yaml", VALUES_GATEWAY)
write("broken", "values/metrics.yaml", "scrape: true\n")
write("broken", "values/router.yaml",
      values_router("certmanager", host="router.apps.svc", replicas='"2"', tag="latest"))
write("broken", "manifests/cert-manager.yaml", CERT_MANAGER)
write("broken", "manifests/cert-manager-copy.yaml", CERT_MANAGER.replace("namespace: cert-manager", "namespace: kube-system"))
write("broken", "manifests/pki.yaml", PKI)
write("broken", "manifests/metrics.error", "chart local/metrics not found in any chart source\n")
router_extra = f"""---
# Source: router/templates/trust-secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: router-trust
  namespace: apps
data:
  ca.crt: {b64(CA)}
  tls.key: {b64(ROUTER_KEY)}
---
# Source: router/templates/expiring.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: short-cert
  namespace: apps
data:
  tls.crt: |
{block(SHORT, 4)}
---
# Source: router/templates/shared.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: shared-config
  namespace: apps
data:
  owner: router
---
# Source: router/templates/gateway-certificate.yaml
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: gateway-tls
  namespace: apps
spec:
  secretName: gateway-tls
  issuerRef:
    name: apps-issuer
  dnsNames:
    - gateway.apps.svc.cluster.local
"""
write("broken", "manifests/router.yaml", router_manifests(
    dns=["router.apps.svc.cluster.local"],
    bundle=CA + ROUTER,
    trust_volume="""        - name: trust-bundle
          secret:
            secretName: router-tls""",
    tag="latest",
    extra=router_extra,
))
write("broken", "manifests/gateway.yaml", GATEWAY.replace("{creds}", "gateway-creds-missing") + """---
# Source: gateway/templates/shared.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: shared-config
  namespace: apps
data:
  owner: gateway
""")
