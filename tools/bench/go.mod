module github.com/unikorn-cloud/terraform-provider-unikorn/tools/bench

go 1.26.8

require github.com/gophercloud/gophercloud/v2 v2.16.0

require gopkg.in/yaml.v2 v2.4.0 // indirect
