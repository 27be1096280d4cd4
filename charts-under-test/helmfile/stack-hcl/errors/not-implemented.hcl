values {
  a = 1
  b = yamlencode({ a = hv.a })
}
