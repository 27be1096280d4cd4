locals {
  team = "core"
}

values {
  owner = local.owner
}
