// Command terraform-provider-unikorn serves the Unikorn provider for Terraform and OpenTofu.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/provider"
)

// version is set by the release build (goreleaser's ldflags -X main.version=...).
var version = "dev"

func main() {
	var debug bool

	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	opts := providerserver.ServeOpts{
		Address:         "registry.terraform.io/unikorn-cloud/unikorn",
		Debug:           debug,
		ProtocolVersion: 6,
	}

	if err := providerserver.Serve(context.Background(), provider.New(version), opts); err != nil {
		// The plugin server failed before any Terraform logger exists: stderr is all there is.
		log.Fatal(err.Error())
	}
}
