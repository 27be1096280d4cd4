values {
  a = 1
  b = frobnicate(hv.a)
}
