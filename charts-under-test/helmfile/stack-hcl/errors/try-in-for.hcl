values {
  zones = ["a"]
  safe  = [for z in hv.zones : try(z.name, z)]
}
