package federation_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/federation"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/acctest"
	unikornfed "github.com/unikorn-cloud/terraform-provider-unikorn/internal/federation"
	"github.com/unikorn-cloud/terraform-provider-unikorn/internal/naming"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "unikorn_federation", nil, sweepFederations)
}

// identityProvider is one entry of Keystone's list of identity providers.
type identityProvider struct {
	ID string `json:"id"`
}

// sweepFederations deletes the identity providers whose IDs carry the test prefix, with their
// protocols and mappings. Run with `go test ./internal/federation/ -sweep=all`.
var sweepFederations = acctest.GlobalSweep("identity provider", unikornfed.NewService,
	func(ctx context.Context, svc *unikornfed.Service) ([]identityProvider, error) {
		var body struct {
			IDPs []identityProvider `json:"identity_providers"`
		}

		_, err := svc.Keystone.Get(ctx, svc.Keystone.ServiceURL("OS-FEDERATION", "identity_providers"), &body, nil)

		return body.IDPs, err
	},
	func(idp identityProvider) (string, string) { return idp.ID, idp.ID },
	func(ctx context.Context, svc *unikornfed.Service, idp identityProvider) error {
		var errs []error
		for _, p := range unikornfed.Protocols {
			errs = append(errs, svc.Delete(ctx, idp.ID, p))
		}

		return errors.Join(errs...)
	})

// keystoneRules are the rules Keystone holds in the mapping of identity provider idpID, as the
// provider wrote them (JSON).
func keystoneRules(t *testing.T, idpID string) (string, error) {
	var body struct {
		Mapping struct {
			Rules json.RawMessage `json:"rules"`
		} `json:"mapping"`
	}

	err := federation.GetMapping(context.Background(), acctest.AdminKeystone(t), naming.FederationMapping(idpID)).ExtractInto(&body)

	return string(body.Mapping.Rules), err
}

// protocols lists the protocols of identity provider idpID as "protocol:mapping".
func protocols(t *testing.T, idpID string) ([]string, error) {
	sc := acctest.AdminKeystone(t)

	var body struct {
		Protocols []struct {
			ID        string `json:"id"`
			MappingID string `json:"mapping_id"`
		} `json:"protocols"`
	}

	if _, err := sc.Get(context.Background(), sc.ServiceURL("OS-FEDERATION", "identity_providers", idpID, "protocols"), &body, nil); err != nil {
		return nil, err
	}

	out := make([]string, len(body.Protocols))
	for i, p := range body.Protocols {
		out[i] = p.ID + ":" + p.MappingID
	}

	slices.Sort(out)

	return out, nil
}

// checkDestroy asks Keystone that the identity provider and the mapping of every
// unikorn_federation of the state are gone.
func checkDestroy(t *testing.T) func(*terraform.State) error {
	return func(s *terraform.State) error {
		sc := acctest.AdminKeystone(t)

		return acctest.EachOf(s, "unikorn_federation", func(a map[string]string) error {
			id := a["id"]

			if _, err := sc.Get(context.Background(), sc.ServiceURL("OS-FEDERATION", "identity_providers", id), nil, nil); !gophercloud.ResponseCodeIs(err, 404) {
				return fmt.Errorf("identity provider %s still exists (%v)", id, err)
			}

			if _, err := keystoneRules(t, id); !gophercloud.ResponseCodeIs(err, 404) {
				return fmt.Errorf("mapping %s still exists (%v)", naming.FederationMapping(id), err)
			}

			return nil
		})
	}
}

// canonical is raw re-encoded with sorted keys; "" when it is not JSON.
func canonical(raw string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return ""
	}

	out, _ := json.Marshal(v)

	return string(out)
}
