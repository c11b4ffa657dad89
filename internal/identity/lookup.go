package identity

import "github.com/hashicorp/terraform-plugin-framework/datasource"

// NewIdentityLookup is replaced by the look-up data source (work in progress: not registered in a release).
func NewIdentityLookup() datasource.DataSource { return nil }
