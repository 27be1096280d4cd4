values {
  zones = ["a"]
  names = "%{ for z in hv.zones }${try(z.name, z)} %{ endfor }"
}
