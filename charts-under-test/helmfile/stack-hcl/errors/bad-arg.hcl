values {
  a = 1
  b = upper([hv.a])
}
