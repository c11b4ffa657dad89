package identity

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// CloudsYAML is a clouds.yaml with one cloud, cloudName, that authenticates with the
// application credential (auth type v3applicationcredential) against authURL, in region
// through the endpoint interface iface.
func CloudsYAML(cloudName, authURL, region, iface, credentialID, credentialSecret string) (string, error) {
	type auth struct {
		AuthURL                     string `yaml:"auth_url"`
		ApplicationCredentialID     string `yaml:"application_credential_id"`
		ApplicationCredentialSecret string `yaml:"application_credential_secret"`
	}

	type entry struct {
		AuthType           string `yaml:"auth_type"`
		Auth               auth   `yaml:"auth"`
		RegionName         string `yaml:"region_name,omitempty"`
		Interface          string `yaml:"interface,omitempty"`
		IdentityAPIVersion int    `yaml:"identity_api_version"`
	}

	doc := struct {
		Clouds map[string]entry `yaml:"clouds"`
	}{
		Clouds: map[string]entry{
			cloudName: {
				AuthType: "v3applicationcredential",
				Auth: auth{
					AuthURL:                     authURL,
					ApplicationCredentialID:     credentialID,
					ApplicationCredentialSecret: credentialSecret,
				},
				RegionName:         region,
				Interface:          iface,
				IdentityAPIVersion: 3,
			},
		},
	}

	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("rendering clouds.yaml: %w", err)
	}

	return string(out), nil
}
