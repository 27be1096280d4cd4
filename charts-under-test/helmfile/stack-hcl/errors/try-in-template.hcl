values {
  zones = ["a"]
  first = "zone-${try(hv.zones[3], "none")}"
}
