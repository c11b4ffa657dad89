package network

import "github.com/hashicorp/terraform-plugin-framework/datasource"

// NewSecurityGroupLookup is replaced by the look-up data source (work in progress: not registered in a release).
func NewSecurityGroupLookup() datasource.DataSource { return nil }
