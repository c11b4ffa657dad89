module github.com/unikorn-cloud/terraform-provider-unikorn/tools/bench

go 1.26.8

require (
	github.com/gophercloud/gophercloud/v2 v2.16.0
	github.com/unikorn-cloud/terraform-provider-unikorn v0.0.0
)

require (
	github.com/fatih/color v1.18.0 // indirect
	github.com/hashicorp/go-hclog v1.6.3 // indirect
	github.com/hashicorp/terraform-plugin-log v0.11.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/sys v0.47.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)

replace github.com/unikorn-cloud/terraform-provider-unikorn => ../..
