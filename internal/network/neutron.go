package network

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"
)

// This file holds the few Neutron calls of the package, with explicit request and response
// bodies: the provider attributes (provider:*, router:external) and the bulk rule POST are
// simpler to state than to assemble from gophercloud's option builders.

// Collections of the Neutron v2.0 API: the URL path and the JSON key of a list.
type collection struct {
	path string // "security-groups"
	key  string // "security_groups"
	one  string // "security_group"
}

var (
	collNetworks       = collection{"networks", "networks", "network"}
	collSubnets        = collection{"subnets", "subnets", "subnet"}
	collRouters        = collection{"routers", "routers", "router"}
	collPorts          = collection{"ports", "ports", "port"}
	collSecurityGroups = collection{"security-groups", "security_groups", "security_group"}
	collRules          = collection{"security-group-rules", "security_group_rules", "security_group_rule"}
)

// neutronNetwork is a Neutron network with the provider and external extensions.
type neutronNetwork struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	ProjectID       string   `json:"project_id"`
	Status          string   `json:"status"`
	Subnets         []string `json:"subnets"`
	Tags            []string `json:"tags"`
	External        bool     `json:"router:external"`
	NetworkType     string   `json:"provider:network_type"`
	PhysicalNetwork string   `json:"provider:physical_network"`
	SegmentationID  optInt   `json:"provider:segmentation_id"`
}

// neutronSubnet is a Neutron subnet.
type neutronSubnet struct {
	ID              string             `json:"id"`
	Name            string             `json:"name"`
	Description     string             `json:"description"`
	NetworkID       string             `json:"network_id"`
	ProjectID       string             `json:"project_id"`
	CIDR            string             `json:"cidr"`
	IPVersion       int                `json:"ip_version"`
	GatewayIP       *string            `json:"gateway_ip"`
	AllocationPools []allocationPool   `json:"allocation_pools"`
	DNSNameservers  []string           `json:"dns_nameservers"`
	HostRoutes      []neutronHostRoute `json:"host_routes"`
}

type allocationPool struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

type neutronHostRoute struct {
	Destination string `json:"destination"`
	NextHop     string `json:"nexthop"`
}

// neutronRouter is a Neutron router.
type neutronRouter struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	ProjectID   string         `json:"project_id"`
	Status      string         `json:"status"`
	Gateway     *routerGateway `json:"external_gateway_info"`
}

type routerGateway struct {
	NetworkID string `json:"network_id"`
}

// gatewayNetworkID is the external network of the router's gateway, or "".
func (r neutronRouter) gatewayNetworkID() string {
	if r.Gateway == nil {
		return ""
	}

	return r.Gateway.NetworkID
}

// neutronPort is a Neutron port, as far as deletion reports need it.
type neutronPort struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	NetworkID   string    `json:"network_id"`
	ProjectID   string    `json:"project_id"`
	DeviceID    string    `json:"device_id"`
	DeviceOwner string    `json:"device_owner"`
	FixedIPs    []fixedIP `json:"fixed_ips"`
}

type fixedIP struct {
	SubnetID  string `json:"subnet_id"`
	IPAddress string `json:"ip_address"`
}

// describe names a port for a human: name (or ID), ID, owner and device.
func (p neutronPort) describe() string {
	name := p.Name
	if name == "" {
		name = "(unnamed)"
	}

	owner := p.DeviceOwner
	if owner == "" {
		owner = "no owner"
	}

	device := ""
	if p.DeviceID != "" {
		device = ", device " + p.DeviceID
	}

	return fmt.Sprintf("port %s (%s, owner %s%s)", name, p.ID, owner, device)
}

// neutronSecurityGroup is a Neutron security group with its rules.
type neutronSecurityGroup struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	ProjectID   string        `json:"project_id"`
	Rules       []neutronRule `json:"security_group_rules"`
}

// neutronRule is a Neutron security group rule. Absent values are nil.
type neutronRule struct {
	ID                   string  `json:"id,omitempty"`
	SecurityGroupID      string  `json:"security_group_id"`
	Direction            string  `json:"direction"`
	EtherType            string  `json:"ethertype"`
	Protocol             *string `json:"protocol,omitempty"`
	PortRangeMin         *int    `json:"port_range_min,omitempty"`
	PortRangeMax         *int    `json:"port_range_max,omitempty"`
	RemoteIPPrefix       *string `json:"remote_ip_prefix,omitempty"`
	RemoteGroupID        *string `json:"remote_group_id,omitempty"`
	RemoteAddressGroupID *string `json:"remote_address_group_id,omitempty"`
	Description          string  `json:"description,omitempty"`
}

// optInt is an integer that may be null, and that some Neutron plugins send as a string.
type optInt struct {
	Value int
	Valid bool
}

func (o *optInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*o = optInt{}
		return nil
	}

	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}

		if s == "" {
			*o = optInt{}
			return nil
		}

		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("not an integer: %q", s)
		}

		*o = optInt{Value: n, Valid: true}

		return nil
	}

	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}

	*o = optInt{Value: n, Valid: true}

	return nil
}

// APIError is an error answer of Neutron, with the type and message of its NeutronError body.
// It unwraps to gophercloud's error, so gophercloud.ResponseCodeIs works on it.
type APIError struct {
	Status  int
	Type    string // e.g. "VlanIdInUse", "NetworkInUse"
	Message string
	Err     error
}

func (e *APIError) Error() string {
	switch {
	case e.Type != "" && e.Message != "":
		return fmt.Sprintf("Neutron answered HTTP %d (%s): %s", e.Status, e.Type, e.Message)
	case e.Message != "":
		return fmt.Sprintf("Neutron answered HTTP %d: %s", e.Status, e.Message)
	}

	return e.Err.Error()
}

func (e *APIError) Unwrap() error { return e.Err }

// apiError turns gophercloud's unexpected-response error into an *APIError; other errors
// are returned as they are.
func apiError(err error) error {
	var code gophercloud.ErrUnexpectedResponseCode
	if err == nil || !errors.As(err, &code) {
		return err
	}

	var body struct {
		NeutronError struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Detail  string `json:"detail"`
		} `json:"NeutronError"`
	}

	out := &APIError{Status: code.Actual, Err: err}
	if json.Unmarshal(code.Body, &body) == nil {
		out.Type = body.NeutronError.Type
		out.Message = strings.TrimSpace(body.NeutronError.Message)
	}

	return out
}

// errorType is the NeutronError type of err ("" when it has none).
func errorType(err error) string {
	var e *APIError
	if errors.As(err, &e) {
		return e.Type
	}

	return ""
}

// isNotFound tells whether err is a 404.
func isNotFound(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusNotFound)
}

// isConflict tells whether err is a 409.
func isConflict(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusConflict)
}

// neutron is a Neutron v2.0 client.
type neutron struct {
	sc *gophercloud.ServiceClient
}

func (n neutron) url(path string, query url.Values) string {
	u := n.sc.ServiceURL(path)
	if len(query) > 0 {
		u += "?" + query.Encode()
	}

	return u
}

// unwrap reads the object under key of a response body into out.
func unwrap(body map[string]json.RawMessage, key string, out any) error {
	raw, ok := body[key]
	if !ok {
		return fmt.Errorf("the answer holds no %q", key)
	}

	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("reading the %s in the answer: %w", key, err)
	}

	return nil
}

// get reads one object of c by ID into out.
func (n neutron) get(ctx context.Context, c collection, id string, out any) error {
	var body map[string]json.RawMessage

	_, err := n.sc.Get(ctx, n.url(c.path+"/"+url.PathEscape(id), nil), &body, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return apiError(err)
	}

	return unwrap(body, c.one, out)
}

// create POSTs one object of c and reads the answer into out.
func (n neutron) create(ctx context.Context, c collection, in, out any) error {
	var body map[string]json.RawMessage

	_, err := n.sc.Post(ctx, n.url(c.path, nil), map[string]any{c.one: in}, &body,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
	if err != nil {
		return apiError(err)
	}

	return unwrap(body, c.one, out)
}

// update PUTs the fields of in to one object of c and reads the answer into out.
func (n neutron) update(ctx context.Context, c collection, id string, in, out any) error {
	var body map[string]json.RawMessage

	_, err := n.sc.Put(ctx, n.url(c.path+"/"+url.PathEscape(id), nil), map[string]any{c.one: in}, &body,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return apiError(err)
	}

	return unwrap(body, c.one, out)
}

// delete deletes one object of c by ID.
func (n neutron) delete(ctx context.Context, c collection, id string) error {
	_, err := n.sc.Delete(ctx, n.url(c.path+"/"+url.PathEscape(id), nil), &gophercloud.RequestOpts{OkCodes: []int{http.StatusNoContent}})

	return apiError(err)
}

// action PUTs body to /<c>/<id>/<action> (router interfaces).
func (n neutron) action(ctx context.Context, c collection, id, action string, body, out any) error {
	_, err := n.sc.Put(ctx, n.url(c.path+"/"+url.PathEscape(id)+"/"+action, nil), body, out,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})

	return apiError(err)
}

// list reads every page of c matching query.
func list[T any](ctx context.Context, n neutron, c collection, query url.Values) ([]T, error) {
	var out []T

	next := n.url(c.path, query)

	for pages := 0; next != ""; pages++ {
		if pages > 10000 {
			return nil, fmt.Errorf("listing %s: too many pages", c.path)
		}

		var page map[string]json.RawMessage
		if _, err := n.sc.Get(ctx, next, &page, &gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}}); err != nil {
			return nil, apiError(err)
		}

		var items []T
		if raw, ok := page[c.key]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("reading the %s list: %w", c.path, err)
			}
		}

		out = append(out, items...)
		next = ""

		if raw, ok := page[c.key+"_links"]; ok && len(items) > 0 {
			var links []gophercloud.Link
			if json.Unmarshal(raw, &links) == nil {
				for _, l := range links {
					if l.Rel == "next" {
						next = l.Href
					}
				}
			}
		}
	}

	return out, nil
}
