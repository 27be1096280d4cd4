values {
  region = "a"
}

values {
  zone = "b"
  region = "c"
}
