values {
  ports = [80]
  port  = try(hv.ports[3], hv.ports.first)
}
