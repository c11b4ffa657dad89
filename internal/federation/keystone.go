package federation

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/cloud"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/domain"
)

// The OS-FEDERATION calls. gophercloud's federation package covers mappings (used here, with
// the rules passed through as JSON so that nothing of them is lost), but neither identity
// providers nor protocols: those are plain requests on the same Keystone client.

// identityProvider is Keystone's identity provider object.
type identityProvider struct {
	ID          string   `json:"id,omitempty"`
	DomainID    string   `json:"domain_id,omitempty"`
	Description string   `json:"description"`
	Enabled     bool     `json:"enabled"`
	RemoteIDs   []string `json:"remote_ids"`
}

// protocolObject is Keystone's federation protocol object.
type protocolObject struct {
	ID        string `json:"id,omitempty"`
	MappingID string `json:"mapping_id"`
}

func idpURL(sc *gophercloud.ServiceClient, id string) string {
	return sc.ServiceURL("OS-FEDERATION", "identity_providers", id)
}

func protocolURL(sc *gophercloud.ServiceClient, idpID, protocol string) string {
	return sc.ServiceURL("OS-FEDERATION", "identity_providers", idpID, "protocols", protocol)
}

// getIDP reads identity provider id; nil when it does not exist.
func (s *Service) getIDP(ctx context.Context, id string) (*identityProvider, error) {
	var body struct {
		IDP identityProvider `json:"identity_provider"`
	}

	_, err := s.Keystone.Get(ctx, idpURL(s.Keystone, id), &body, nil)

	if found, err := s.Found("reading identity provider "+id, err); !found {
		return nil, err
	}

	return &body.IDP, nil
}

// putIDP creates identity provider id.
func (s *Service) putIDP(ctx context.Context, id string, idp identityProvider) (*identityProvider, error) {
	var body struct {
		IDP identityProvider `json:"identity_provider"`
	}

	_, err := s.Keystone.Put(ctx, idpURL(s.Keystone, id), map[string]any{"identity_provider": idp}, &body,
		&gophercloud.RequestOpts{OkCodes: []int{201}})
	if err != nil {
		return nil, err
	}

	return &body.IDP, nil
}

// patchIDP changes what Keystone lets change of identity provider id (not its domain).
func (s *Service) patchIDP(ctx context.Context, id string, idp identityProvider) (*identityProvider, error) {
	var body struct {
		IDP identityProvider `json:"identity_provider"`
	}

	change := map[string]any{"description": idp.Description, "enabled": idp.Enabled, "remote_ids": idp.RemoteIDs}

	_, err := s.Keystone.Patch(ctx, idpURL(s.Keystone, id), map[string]any{"identity_provider": change}, &body,
		&gophercloud.RequestOpts{OkCodes: []int{200}})
	if err != nil {
		return nil, s.Refused("updating identity provider "+id, err)
	}

	return &body.IDP, nil
}

// rawRules is a mapping's rules, passed to gophercloud as they are.
type rawRules json.RawMessage

// ToMappingCreateMap makes rawRules a federation.CreateMappingOptsBuilder.
func (r rawRules) ToMappingCreateMap() (map[string]any, error) {
	return map[string]any{"mapping": map[string]any{"rules": json.RawMessage(r)}}, nil
}

// ToMappingUpdateMap makes rawRules a federation.UpdateMappingOptsBuilder.
func (r rawRules) ToMappingUpdateMap() (map[string]any, error) {
	return r.ToMappingCreateMap()
}

// getMapping reads the rules of mapping id as JSON; "" when it does not exist.
func (s *Service) getMapping(ctx context.Context, id string) (string, error) {
	var body struct {
		Mapping struct {
			Rules json.RawMessage `json:"rules"`
		} `json:"mapping"`
	}

	err := federation.GetMapping(ctx, s.Keystone, id).ExtractInto(&body)

	if found, err := s.Found("reading mapping "+id, err); !found {
		return "", err
	}

	return Canonical(string(body.Mapping.Rules))
}

// putMapping creates mapping id with rules, sent once and recovered like the identity
// provider (putOnce).
func (s *Service) putMapping(ctx context.Context, id, rules string) error {
	err := putOnce(ctx, "mapping", id,
		func(ctx context.Context) error {
			return federation.CreateMapping(ctx, s.Keystone, id, rawRules(rules)).Err
		},
		func(ctx context.Context) (bool, error) { r, err := s.getMapping(ctx, id); return r != "", err })
	if domain.Conflict(err) {
		return fmt.Errorf("a mapping %q exists already and is not this federation's: delete it, or import the "+
			"federation that uses it", id)
	}

	return s.Refused("creating mapping "+id, err)
}

// patchMapping replaces the rules of mapping id.
func (s *Service) patchMapping(ctx context.Context, id, rules string) error {
	return s.Refused("updating mapping "+id, federation.UpdateMapping(ctx, s.Keystone, id, rawRules(rules)).Err)
}

// getProtocol reads protocol of identity provider idpID; nil when it does not exist.
func (s *Service) getProtocol(ctx context.Context, idpID, protocol string) (*protocolObject, error) {
	var body struct {
		Protocol protocolObject `json:"protocol"`
	}

	_, err := s.Keystone.Get(ctx, protocolURL(s.Keystone, idpID, protocol), &body, nil)

	if found, err := s.Found(fmt.Sprintf("reading protocol %s of identity provider %s", protocol, idpID), err); !found {
		return nil, err
	}

	return &body.Protocol, nil
}

// listProtocols lists the protocols of identity provider idpID.
func (s *Service) listProtocols(ctx context.Context, idpID string) ([]protocolObject, error) {
	var body struct {
		Protocols []protocolObject `json:"protocols"`
	}

	_, err := s.Keystone.Get(ctx, s.Keystone.ServiceURL("OS-FEDERATION", "identity_providers", idpID, "protocols"), &body, nil)
	if err != nil {
		return nil, s.Refused("listing the protocols of identity provider "+idpID, err)
	}

	return body.Protocols, nil
}

// putProtocol creates, or with patch changes, protocol of identity provider idpID to use
// mapping mappingID.
func (s *Service) putProtocol(ctx context.Context, idpID, protocol, mappingID string, patch bool) error {
	body := map[string]any{"protocol": map[string]any{"mapping_id": mappingID}}
	url := protocolURL(s.Keystone, idpID, protocol)

	var err error

	if patch {
		_, err = s.Keystone.Patch(ctx, url, body, nil, &gophercloud.RequestOpts{OkCodes: []int{200}})
	} else {
		err = putOnce(ctx, "protocol", protocol,
			func(ctx context.Context) error {
				_, err := s.Keystone.Put(ctx, url, body, nil, &gophercloud.RequestOpts{OkCodes: []int{201}})
				return err
			},
			func(ctx context.Context) (bool, error) {
				p, err := s.getProtocol(ctx, idpID, protocol)
				return p != nil, err
			})
	}

	return s.Refused(fmt.Sprintf("setting protocol %s of identity provider %s", protocol, idpID), err)
}

// putOnce creates the object kind named id (looked for before, and not found) by a PUT sent
// once (cloud.Once: a repeat after a lost answer would meet what the first PUT made as a 409),
// and recovers a lost answer by looking for the object again (cloud.Create): found, it is this
// create's.
func putOnce(ctx context.Context, kind, id string, put func(ctx context.Context) error, exists func(ctx context.Context) (bool, error)) error {
	_, err := cloud.Create(ctx, cloud.CreateSpec[string]{
		Kind: kind, Name: id,
		Create: func(ctx context.Context) (string, error) { return id, put(cloud.Once(ctx)) },
		Find: func(ctx context.Context) ([]string, error) {
			found, err := exists(ctx)
			if !found {
				return nil, err
			}

			return []string{id}, err
		},
		ID: func(id string) string { return id },
	})

	return err
}

// remove deletes what url names; already gone is done.
func (s *Service) remove(ctx context.Context, what, url string) error {
	_, err := s.Keystone.Delete(ctx, url, nil)
	if domain.NotFound(err) {
		return nil
	}

	return s.Refused("deleting "+what, err)
}
