module github.com/unikorn-cloud/terraform-provider-unikorn/tools/timing

go 1.26.8
