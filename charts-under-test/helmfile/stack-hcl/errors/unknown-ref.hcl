values {
  a = 1
  b = hv.nope + 1
}
