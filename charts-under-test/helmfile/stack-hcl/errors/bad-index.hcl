values {
  zones = ["a", "b"]
  third = hv.zones[2]
}
