locals {
  prefix = "shared"
}

values {
  region        = "eu-west-1"
  base_replicas = 2
  debug         = true
  zones         = ["a", "b", "c"]
  common_labels = { team = "platform", owner = local.prefix }
  yaml_override = "from-hcl"
  nested        = { keep = "hcl", list = [1, 2.5] }
}
