package acctest

import (
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// CloudEntry is the part of a clouds.yaml entry the tests need to re-express the same
// credentials another way (environment variables, explicit provider arguments).
type CloudEntry struct {
	RegionName string `yaml:"region_name"`
	Auth       struct {
		AuthURL           string `yaml:"auth_url"`
		Username          string `yaml:"username"`
		Password          string `yaml:"password"`
		UserDomainName    string `yaml:"user_domain_name"`
		UserDomainID      string `yaml:"user_domain_id"`
		ProjectName       string `yaml:"project_name"`
		ProjectDomainName string `yaml:"project_domain_name"`
	} `yaml:"auth"`
}

// CloudsYAMLEntry reads the entry OS_CLOUD from the file OS_CLIENT_CONFIG_FILE.
func CloudsYAMLEntry(t *testing.T) CloudEntry {
	t.Helper()

	return CloudsYAMLEntryOf(t, os.Getenv("OS_CLOUD"))
}

// CloudsYAMLEntryOf reads the entry cloud from the file OS_CLIENT_CONFIG_FILE.
func CloudsYAMLEntryOf(t *testing.T, cloud string) CloudEntry {
	t.Helper()

	raw, err := os.ReadFile(os.Getenv("OS_CLIENT_CONFIG_FILE"))
	if err != nil {
		t.Fatalf("reading clouds.yaml: %v", err)
	}

	var file struct {
		Clouds map[string]CloudEntry `yaml:"clouds"`
	}

	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatalf("parsing clouds.yaml: %v", err)
	}

	entry, ok := file.Clouds[cloud]
	if !ok {
		t.Fatalf("clouds.yaml has no cloud %q", cloud)
	}

	return entry
}
