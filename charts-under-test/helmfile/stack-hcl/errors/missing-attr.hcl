values {
  service = { port = 80 }
  target  = hv.service.name
}
