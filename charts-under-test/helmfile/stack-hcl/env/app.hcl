# Values of the app, computed from the shared ones.
locals {
  prefix = "svc"
  ports  = [80, 443]
}

values {
  name      = "${local.prefix}-${hv.region}"
  replicas  = hv.base_replicas * 2 + 1
  ratio     = 7 / 2
  big       = 1000000 * 3
  neg       = -hv.base_replicas
  ports     = [for p in local.ports : p + 8000]
  labels    = merge(hv.common_labels, { tier = upper("web") })
  banner    = <<-EOT
    %{ if hv.debug }debug%{ else }quiet%{ endif } mode
    %{ for i, z in hv.zones }zone ${i}=${z}
    %{ endfor ~}
  EOT
  summary   = format("%s has %d zones", hv.region, length(hv.zones))
  json      = jsonencode({ a = 1, b = [true, null], c = "x\u0008\u000c<\u2028" })
  all_ports = concat(local.ports, [8080])
  tier      = lookup(hv.common_labels, "tier", "none")
  first     = coalesce("", "fallback")
  safe      = try(hv.zones[5], "no-zone")
  ok        = can(hv.zones[5])
  size      = hv.debug ? "small" : "large"
  zone_map  = { for z in hv.zones : z => upper(z) if z != "b" }
  nothing   = null
  items     = [{ name = "a", port = 80 }, { name = "b" }]
  item_port = [for i in hv.items : try(i.port, 8080)]
  has_port  = { for i in hv.items : i.name => can(i.port) }
  grouped   = { for k, v in { x = 1, y = 2, z = 1 } : v => k... if can(v) }
  described = "zone-${try(hv.zones[3], "none")}, $${literal} %%{literal}, ${can(hv.zones[0])}"
  report    = <<-EOT
    first: ${try(hv.zones[0], "?")}
    %{ if can(hv.zones[0]) }has zones%{ else }no zones%{ endif }
    %{ for z in try(hv.zones, []) }[${z}]%{ endfor }
  EOT
}
