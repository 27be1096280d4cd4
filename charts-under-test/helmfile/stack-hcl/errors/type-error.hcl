values {
  a = 1

  b = hv.a + "x"
}
