module github.com/unikorn-cloud/terraform-provider-unikorn/tools/testacc/traces

go 1.26.8
