// Package federation is unikorn_federation: everything Keystone needs for single sign-on into a
// domain through an organisation's identity provider (OS-FEDERATION): the identity provider
// (its remote IDs and the domain of its shadow users), a mapping of assertions onto users and
// groups, and the protocol (openid, saml2 or mapped) that uses the mapping.
//
// The core holds no Terraform types: this file converges, reads and deletes the three objects,
// keystone.go holds the calls, rules.go the common form of mapping rules and their JSON, and
// mapping.go the check of rules against Keystone's mapping schema. resource.go, schema.go,
// model.go and plan.go adapt the core to terraform-plugin-framework. Everything is done as
// the service user with its cloud-admin grant, like the other region-preparation resources.
package federation

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

// Protocols are the federation protocols a federation may use.
var Protocols = []string{"openid", "saml2", "mapped"}

// Spec is what a federation should be.
type Spec struct {
	IDPID, Description, DomainID string
	Enabled                      bool
	RemoteIDs                    []string
	Protocol                     string
	// Rules are the mapping's rules, Keystone's rule list as JSON.
	Rules string
}

// Federation is a federation as found in Keystone.
type Federation struct {
	IDPID, Description, DomainID string
	Enabled                      bool
	RemoteIDs                    []string
	// Protocol is "" when the protocol is missing; MappingID is then "".
	Protocol, MappingID string
	// Rules are the mapping's rules in canonical JSON; "" when the mapping is missing.
	Rules string
}

// Service runs federation operations as the service user with its cloud-admin grant.
type Service struct {
	*domain.Admin
}

// NewService is the federation core of c.
func NewService(c *cloud.Client) (*Service, error) {
	a, err := domain.NewAdmin(c)

	return &Service{a}, err
}

// Ensure makes Keystone hold the federation of spec, priorProtocol being the protocol the last
// apply made ("" on create): the identity provider (created, or brought to spec in place), the
// mapping naming.FederationMapping(IDPID) and the protocol using it (a protocol renamed is made
// anew, then the old one deleted). An identity provider of the ID that exists on create is a
// *cloud.ExistsError. On a later error the returned Federation holds what exists, for the
// caller to record.
func (s *Service) Ensure(ctx context.Context, spec Spec, priorProtocol string) (*Federation, error) {
	want := identityProvider{DomainID: spec.DomainID, Description: spec.Description, Enabled: spec.Enabled, RemoteIDs: cloud.SortedSet(spec.RemoteIDs)}

	var (
		idp *identityProvider
		err error
	)

	if priorProtocol == "" {
		idp, err = s.createIDP(ctx, spec.IDPID, want)
	} else {
		idp, err = s.convergeIDP(ctx, spec.IDPID, want)
	}

	if idp == nil {
		return nil, err
	}

	out := &Federation{IDPID: spec.IDPID, Description: idp.Description, DomainID: idp.DomainID, Enabled: idp.Enabled,
		RemoteIDs: cloud.SortedSet(idp.RemoteIDs), Protocol: priorProtocol}
	if err != nil {
		return out, err
	}

	mappingID := naming.FederationMapping(spec.IDPID)

	if out.Rules, err = s.ensureMapping(ctx, mappingID, spec.Rules); err != nil {
		return out, err
	}

	current, err := s.getProtocol(ctx, spec.IDPID, spec.Protocol)
	if err != nil {
		return out, err
	}

	if current == nil || current.MappingID != mappingID {
		if err := s.putProtocol(ctx, spec.IDPID, spec.Protocol, mappingID, current != nil); err != nil {
			return out, err
		}
	}

	out.Protocol, out.MappingID = spec.Protocol, mappingID

	if priorProtocol != "" && priorProtocol != spec.Protocol {
		if err := s.remove(ctx, "protocol "+priorProtocol, protocolURL(s.Keystone, spec.IDPID, priorProtocol)); err != nil {
			return out, err
		}
	}

	return out, nil
}

// TypeName is the resource type of a federation, for its refusals (an identity provider
// carries no marks: Keystone keeps no attribute of it that is not the user's).
const TypeName = "unikorn_federation"

// createIDP creates the identity provider. It looks first: one of the ID that exists is a
// *cloud.ExistsError (an identity provider carries no marks, so none is ever adopted: import
// it), and nothing is sent. The PUT is sent once (cloud.Once: the transport does not repeat a
// create, whose repeat would meet the object the first one made as a 409), and a lost answer is
// recovered by reading the identity provider back (cloud.Create): since there was none before,
// the one found is this create's.
func (s *Service) createIDP(ctx context.Context, id string, want identityProvider) (*identityProvider, error) {
	existing, err := s.getIDP(ctx, id)

	switch {
	case err != nil:
		return nil, err
	case existing != nil:
		return nil, existingIDP(id)
	}

	// Keystone keeps identity provider IDs unique: no twin can be made.
	idp, err := cloud.Create(ctx, cloud.CreateSpec[*identityProvider]{
		Kind: "identity provider", Name: id,
		Create: func(ctx context.Context) (*identityProvider, error) { return s.putIDP(cloud.Once(ctx), id, want) },
		Find:   func(ctx context.Context) ([]*identityProvider, error) { return cloud.Optional(s.getIDP(ctx, id)) },
		ID:     func(idp *identityProvider) string { return idp.ID },
	})

	if domain.Conflict(err) {
		if existing, ferr := s.getIDP(ctx, id); ferr == nil && existing != nil {
			return nil, existingIDP(id)
		}

		return nil, fmt.Errorf("keystone refused identity provider %s: %w (a remote ID may belong to another identity provider already)", id, err)
	}

	if err != nil {
		return nil, s.Refused("creating identity provider "+id, err)
	}

	tflog.Info(ctx, "Created the identity provider", map[string]any{"idp_id": id})

	return idp, nil
}

// existingIDP refuses a create onto identity provider id, which exists already.
func existingIDP(id string) error {
	return &cloud.ExistsError{Existing: cloud.Existing{Type: TypeName, Kind: "identity provider", Name: id, ID: id, ImportID: id}, Claim: cloud.ClaimUnknown}
}

// convergeIDP brings the recorded identity provider to want in place.
func (s *Service) convergeIDP(ctx context.Context, id string, want identityProvider) (*identityProvider, error) {
	idp, err := s.getIDP(ctx, id)

	switch {
	case err != nil:
		return nil, err
	case idp == nil:
		return nil, fmt.Errorf("identity provider %s is gone: refresh, and the next plan makes it again", id)
	case idp.Description == want.Description && idp.Enabled == want.Enabled && slices.Equal(cloud.SortedSet(idp.RemoteIDs), want.RemoteIDs):
		return idp, nil
	}

	updated, err := s.patchIDP(ctx, id, want)
	if err != nil {
		return idp, err
	}

	return updated, nil
}

// ensureMapping makes mapping id hold rules and returns them as Keystone holds them.
func (s *Service) ensureMapping(ctx context.Context, id, rules string) (string, error) {
	current, err := s.getMapping(ctx, id)

	switch {
	case err != nil:
		return "", err
	case current == "":
		err = s.putMapping(ctx, id, rules)
	case !sameRules(current, rules):
		err = s.patchMapping(ctx, id, rules)
	default:
		return current, nil
	}

	if err != nil {
		return current, err
	}

	return Canonical(rules)
}

// Observe reads the federation of identity provider idpID back; protocol is the recorded one,
// or "" (an import) to take the identity provider's only protocol. nil when the identity
// provider is gone.
func (s *Service) Observe(ctx context.Context, idpID, protocol string) (*Federation, error) {
	idp, err := s.getIDP(ctx, idpID)
	if err != nil || idp == nil {
		return nil, err
	}

	out := &Federation{IDPID: idpID, Description: idp.Description, DomainID: idp.DomainID, Enabled: idp.Enabled,
		RemoteIDs: cloud.SortedSet(idp.RemoteIDs)}

	var p *protocolObject

	if protocol != "" {
		if p, err = s.getProtocol(ctx, idpID, protocol); err != nil {
			return nil, err
		}
	} else {
		all, err := s.listProtocols(ctx, idpID)
		if err != nil {
			return nil, err
		}

		if len(all) > 1 {
			return nil, fmt.Errorf("identity provider %s has %d protocols: a unikorn_federation manages one", idpID, len(all))
		}

		if len(all) == 1 {
			p = &all[0]
		}
	}

	mappingID := naming.FederationMapping(idpID)

	if p != nil {
		out.Protocol, out.MappingID, mappingID = p.ID, p.MappingID, p.MappingID
	}

	if out.Rules, err = s.getMapping(ctx, mappingID); err != nil {
		return nil, err
	}

	return out, nil
}

// Delete removes the protocol, the mapping and the identity provider, in that order; what is
// already gone is done.
func (s *Service) Delete(ctx context.Context, idpID, protocol string) error {
	if protocol != "" {
		if err := s.remove(ctx, "protocol "+protocol, protocolURL(s.Keystone, idpID, protocol)); err != nil {
			return err
		}
	}

	mappingID := naming.FederationMapping(idpID)

	if err := s.remove(ctx, "mapping "+mappingID, s.Keystone.ServiceURL("OS-FEDERATION", "mappings", mappingID)); err != nil {
		return err
	}

	return s.remove(ctx, "identity provider "+idpID, idpURL(s.Keystone, idpID))
}

// Locate finds a federation to import by its identity provider's ID.
func (s *Service) Locate(ctx context.Context, idpID string) (cloud.Located, error) {
	idp, err := s.getIDP(ctx, idpID)

	switch {
	case err != nil:
		return cloud.Located{}, err
	case idp == nil:
		return cloud.Located{}, fmt.Errorf("no identity provider %q", idpID)
	}

	return cloud.Located{ID: idpID}, nil
}
