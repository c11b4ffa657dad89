//go:build tools

// Package tools pins the build tools of the provider (documentation generator and linter) in a
// module of their own, so that their dependency trees stay out of the provider's go.sum.
package tools

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
