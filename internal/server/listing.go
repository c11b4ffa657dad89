package server

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
)

// The server's part of the per-run listings and polling rounds (cloud.Listing, cloud.Rounds;
// issue 17): a refresh of many servers of an identity reads the project's servers, their server
// groups and ports (network.PortListing) once; servers that boot or stop at the same time are
// polled together, one listing a round.

// serverKind is the kind of the server listings and rounds, for Tenant.Wrote.
const serverKind = "server"

// serverListing is the run's listing of the project's servers (Nova lists the token's project).
var serverListing = cloud.Listing[servers.Server]{
	Kind: serverKind,
	List: func(ctx context.Context, t *cloud.Tenant) ([]servers.Server, error) {
		sc, err := t.Compute()
		if err != nil {
			return nil, err
		}

		return listServers(ctx, sc, servers.ListOpts{})
	},
	Keys: func(s servers.Server) []string { return []string{s.ID, s.Name} },
}

// serverGroupListing is the run's listing of the project's server groups, found by the servers
// they hold ("member:<server ID>"): Nova's server listing leaves out a server's server groups.
var serverGroupListing = cloud.Listing[servergroups.ServerGroup]{
	Kind: "server group",
	List: func(ctx context.Context, t *cloud.Tenant) ([]servergroups.ServerGroup, error) {
		sc, err := t.Compute()
		if err != nil {
			return nil, err
		}

		pages, err := servergroups.List(sc, servergroups.ListOpts{}).AllPages(ctx)
		if err != nil {
			return nil, err
		}

		return servergroups.ExtractServerGroups(pages)
	},
	Keys: func(g servergroups.ServerGroup) []string {
		keys := []string{g.ID}
		for _, m := range g.Members {
			keys = append(keys, memberKey(m))
		}

		return keys
	},
}

func memberKey(serverID string) string { return "member:" + serverID }

// serverPollInterval and serverPollMaxInterval bound the time between two rounds of server
// polls. Measured on the local cloud (fake virt driver, 2 cores, tools/bench -nova-direct and
// the acceptance tests): a boot takes 3–7 s on a quiet cloud and from 10 s to over a minute with
// many at once; a stop, start or delete 1–3 s. Two seconds keep the wait after Nova is done at
// about a second while a wait is young, for one request a round however many servers wait; a
// long one alone is looked at every 8 s at most.
const (
	serverPollInterval    = 2 * time.Second
	serverPollMaxInterval = 8 * time.Second
)

// serverRounds poll the project's servers, all the names waited for in one request.
var serverRounds = cloud.Rounds[servers.Server]{
	Kind:        serverKind,
	Interval:    serverPollInterval,
	MaxInterval: serverPollMaxInterval,
	List: func(ctx context.Context, t *cloud.Tenant, names []string) ([]servers.Server, error) {
		sc, err := t.Compute()
		if err != nil {
			return nil, err
		}

		return listServers(ctx, sc, servers.ListOpts{Name: prefixFilter(names)})
	},
	Name: func(s servers.Server) string { return s.Name },
	ID:   func(s servers.Server) string { return s.ID },
	// A listing carries no fault: a server listed in ERROR is read for it.
	Confirm: func(s servers.Server) bool { return s.Status == statusError },
}

// prefixFilter is Nova's name filter for the servers whose names start like all of names do
// (names made with count share a prefix), "" (every server) when they share none. Nova matches
// the filter as a regular expression, but not every Nova takes an alternation of names (Zed
// returns nothing for "^(a|b)$"): an anchored, escaped common prefix is what works everywhere.
func prefixFilter(names []string) string {
	if len(names) == 1 {
		return nameFilter(names[0])
	}

	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}

	for !utf8.ValidString(prefix) { // cut inside a character
		prefix = prefix[:len(prefix)-1]
	}

	if prefix == "" {
		return ""
	}

	return "^" + regexp.QuoteMeta(prefix)
}

// listedServer is the server id from the run's listing, with its server groups (none, without
// a look, when noGroup says it was in none); ok is false when the listing cannot answer (the
// caller reads the server itself). A server in ERROR is not answered (the listing carries no
// fault).
func (s *Service) listedServer(ctx context.Context, id string, noGroup bool) (srv *servers.Server, exists, ok bool, err error) {
	listed, exists, ok, err := serverListing.FindOne(ctx, s.tenant, id)
	if err != nil || !ok || !exists {
		return nil, exists, ok, err
	}

	if listed.Status == statusError {
		return nil, false, false, nil
	}

	if noGroup {
		listed.ServerGroups = &[]string{}

		return &listed, true, true, nil
	}

	return s.withServerGroups(ctx, listed)
}

// withServerGroups fills in the server groups of a listed server from the run's listing of the
// project's server groups.
func (s *Service) withServerGroups(ctx context.Context, listed servers.Server) (*servers.Server, bool, bool, error) {
	groups, ok, err := serverGroupListing.Find(ctx, s.tenant, memberKey(listed.ID))
	if err != nil || !ok {
		return nil, false, ok, err
	}

	ids := make([]string, 0, len(groups))
	for _, g := range groups {
		ids = append(ids, g.ID)
	}

	slices.Sort(ids)
	listed.ServerGroups = &ids

	return &listed, true, true, nil
}

// listedServersNamed are the project's servers named exactly name from the run's listing; ok is
// false when the listing cannot answer.
func (s *Service) listedServersNamed(ctx context.Context, name string) ([]servers.Server, bool, error) {
	all, ok, err := serverListing.Find(ctx, s.tenant, name)
	if err != nil || !ok {
		return nil, ok, err
	}

	out := make([]servers.Server, 0, len(all))

	for _, listed := range all {
		if listed.Name != name {
			continue
		}

		if listed.Status == statusError {
			return nil, false, nil
		}

		srv, _, ok, err := s.withServerGroups(ctx, listed)
		if err != nil || !ok {
			return nil, ok, err
		}

		out = append(out, *srv)
	}

	return out, true, nil
}

// serversNamedAgain lists the project's servers named exactly name once more after a write: in
// the next polling round (shared with the servers waited for), else by itself.
func (s *Service) serversNamedAgain(ctx context.Context, name string) ([]servers.Server, error) {
	if again, ok, err := serverRounds.Next(ctx, s.tenant, name, time.Now()); ok {
		return again, err
	}

	return s.serversNamed(ctx, name)
}

// wrote records writes of the servers with these keys (IDs, names) for the run's listings.
func (s *Service) wrote(keys ...string) { s.tenant.Wrote(serverKind, keys...) }
