module github.com/unikorn-cloud/terraform-provider-unikorn/tools/release

go 1.26.8

require gopkg.in/yaml.v3 v3.0.1
