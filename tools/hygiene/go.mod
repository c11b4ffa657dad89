module github.com/unikorn-cloud/terraform-provider-unikorn/tools/hygiene

go 1.26.8
