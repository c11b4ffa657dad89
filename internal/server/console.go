package server

// This file is the core of a server's consoles: its console log (unikorn_server_console) and
// a remote console session (unikorn_server_console_session), one Nova request each, made as
// the identity's own user.

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/remoteconsoles"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
)

// DefaultConsoleType is the remote console a session opens unless told otherwise: noVNC, the
// one a cloud most often enables.
const DefaultConsoleType = "novnc"

// consoleProtocols maps each remote console type Nova offers (microversion 2.6 and later) to
// its protocol.
var consoleProtocols = map[string]remoteconsoles.ConsoleProtocol{
	string(remoteconsoles.ConsoleTypeNoVNC):      remoteconsoles.ConsoleProtocolVNC,
	string(remoteconsoles.ConsoleTypeXVPVNC):     remoteconsoles.ConsoleProtocolVNC,
	string(remoteconsoles.ConsoleTypeSPICEHTML5): remoteconsoles.ConsoleProtocolSPICE,
	string(remoteconsoles.ConsoleTypeRDPHTML5):   remoteconsoles.ConsoleProtocolRDP,
	string(remoteconsoles.ConsoleTypeSerial):     remoteconsoles.ConsoleProtocolSerial,
	string(remoteconsoles.ConsoleTypeWebMKS):     remoteconsoles.ConsoleProtocolMKS,
}

// ConsoleTypes are the remote console types a session may ask for, sorted.
func ConsoleTypes() []string {
	return slices.Sorted(maps.Keys(consoleProtocols))
}

// RemoteConsole is a remote console session Nova opened: a URL that carries a short-lived
// token, a credential to the server's screen.
type RemoteConsole struct {
	Protocol string
	Type     string
	URL      string
}

// ConsoleOutput is the end of the console log of server id: its last lines lines, all of it
// when lines is 0.
func (s *Service) ConsoleOutput(ctx context.Context, id string, lines int) (string, error) {
	out, err := servers.ShowConsoleOutput(ctx, s.compute, id, servers.ShowConsoleOutputOpts{Length: lines}).Extract()
	if err != nil {
		return "", s.callError("reading the console output of", id, err)
	}

	return out, nil
}

// OpenConsole opens a remote console of consoleType (one of ConsoleTypes) on server id.
func (s *Service) OpenConsole(ctx context.Context, id, consoleType string) (RemoteConsole, error) {
	protocol, ok := consoleProtocols[consoleType]
	if !ok {
		return RemoteConsole{}, fmt.Errorf("unknown console type %q (one of %v)", consoleType, ConsoleTypes())
	}

	c, err := remoteconsoles.Create(ctx, s.compute, id, remoteconsoles.CreateOpts{
		Protocol: protocol, Type: remoteconsoles.ConsoleType(consoleType),
	}).Extract()

	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusBadRequest):
		return RemoteConsole{}, fmt.Errorf("opening a %s console on server %s: Nova refused (%w); the compute hosts of "+
			"region %s may not enable %s consoles: ask for another type", consoleType, id, err, s.region, protocol)
	case err != nil:
		return RemoteConsole{}, s.callError("opening a "+consoleType+" console on", id, err)
	}

	return RemoteConsole{Protocol: c.Protocol, Type: c.Type, URL: c.URL}, nil
}

// callError explains a failed call on server id (doing names it): a server that is not the
// identity's (404) and one that is not running or busy (409) are said plainly.
func (s *Service) callError(doing, id string, err error) error {
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return fmt.Errorf("%s server %s: no such server in %s (%w)", doing, id, s, err)
	case gophercloud.ResponseCodeIs(err, http.StatusConflict):
		return fmt.Errorf("%s server %s: Nova refused while the server is not running or busy (%w)", doing, id, err)
	}

	return fmt.Errorf("%s server %s: %w", doing, id, err)
}
