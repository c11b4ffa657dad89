package provider

import "github.com/unikorn-cloud/terraform-provider-unikorn/internal/server"

// serverMeta is the server package's part of the client bundle: the run's memo of the
// server checks' reads.
type serverMeta struct {
	serverChecks server.CheckCache
}

// ServerCheckCache is the memo of the server checks' reads, shared by every server of the run.
func (m *serverMeta) ServerCheckCache() *server.CheckCache {
	return &m.serverChecks
}
